import { Effect, Option } from "effect"
import * as path from "node:path"
import { conflict, invalidArgument, gitFailed, notFound, StorageError } from "../domain/errors.js"
import { RUN_TAG_VARIABLE } from "../domain/product.js"
import { boundFileList, FILE_LIST_CEILING, type OutputCut } from "../domain/report/ceilings.js"
import { type CollectedPatch, type NumstatEntry, numstatCollector, patchCollector } from "../domain/report/patchCollector.js"
import type { ChangedFile } from "../domain/review/anonymize.js"
import { excerpt } from "../domain/toolResult.js"
import { notARepositoryReason } from "../domain/gitRefusal.js"
import { FileStore } from "./FileStore.js"
import { Git } from "./Git.js"
import { LOCAL_TRANSPORT } from "./internal/gitNeutral.js"
import { RunLog } from "./RunLog.js"

export const WORKSPACES_DIRECTORY = "workspaces"
export const IMPLEMENTATION_WORKSPACE = "codex"
/**
 * The daemon's own repository for reading a workspace, outside it (so Codex never sees or changes it): a
 * non-git workspace's snapshot, or for a git workspace a repository that borrows the workspace's objects.
 */
const SNAPSHOT_GIT_DIR = "codex-snapshot.git"
/**
 * The daemon reads a workspace the agent has worked in through a git directory of its own (above), so
 * nothing the agent wrote into the workspace's `.git` (config, hooks) is read; what its `.gitattributes`
 * could select (filters, textconv, external diff) has no driver in the neutral configuration every git
 * command runs with (internal/gitNeutral.ts).
 */
const COLLECT_INDEX = ".collect-index"
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

/** Git's output arrives as lines; a patch ends with a newline. */
const withFinalNewline = (patch: string) => (patch === "" || patch.endsWith("\n") ? patch : `${patch}\n`)

/** A side's changes as collected: the bounded patch, the bounded file list and what was cut. */
export interface CollectedChanges {
  readonly patch: string
  readonly files: ReadonlyArray<ChangedFile>
  readonly cuts: ReadonlyArray<OutputCut>
  /** The whole patch's size, as git wrote it. */
  readonly patch_bytes: number
}

const changedFile = (entry: NumstatEntry): ChangedFile =>
  entry.binary
    ? { path: entry.path, additions: 0, deletions: 0, binary: true }
    : { path: entry.path, additions: entry.additions, deletions: entry.deletions }

export const archivedWorkspaceName = (attempt: number) => `codex-attempt-${attempt}-failed`

/** Where a workspace starts: a commit of a repository, or an empty directory; plus carried-forward files. */
export interface WorkspacePlan {
  readonly kind: "git" | "non_git"
  /** The repository's top level (git), or the project directory carried files come from (non-git). */
  readonly repository: string | null
  readonly commit: string | null
  readonly carriedForwardFiles: ReadonlyArray<string>
  /**
   * A chunk's start: Claude's files as it had left them when the chunk began, rebuilt from the
   * transcript (project-relative paths), written after the commit or into the empty directory.
   */
  readonly carriedContents?: ReadonlyArray<CarriedContent>
  /**
   * Every folder of the user's repository and the thread's working directory that agents must not read
   * (`Workspace.repositoryRoots`: a worktree's common git directory and main worktree included).
   */
  readonly hiddenRoots?: ReadonlyArray<string>
}

export interface CarriedContent {
  readonly path: string
  readonly content: string
}

/** A materialised workspace and what its diff is taken against. */
export interface MaterialisedWorkspace {
  readonly directory: string
  readonly gitDir: string
  readonly base: string
  /** The run's tag, in the environment of every git process working on this workspace. */
  readonly runTag: string | undefined
}


const taggedEnvironment = (runTag: string | undefined): Record<string, string> =>
  runTag === undefined ? {} : { [RUN_TAG_VARIABLE]: runTag }

const repositoryError = (repository: string, detail: string) =>
  invalidArgument(`The historical Git repository ${excerpt(repository)} is unavailable: ${detail}`)

/**
 * Implementation workspaces (docs/security.md): a git workspace holds the starting commit and its history
 * and **no object from after it** (fetched by commit id into a fresh repository; the user's
 * repository is only read); a non-git workspace starts empty. Both get the carried-forward files.
 */
export class Workspace extends Effect.Service<Workspace>()("codex-replay/Workspace", {
  effect: Effect.gen(function*() {
    const git = yield* Git
    const files = yield* FileStore
    const runLog = yield* RunLog

    /** The repository's top level and the full ids of both commits, as the repository is now. */
    const inspectRepository = Effect.fn("Workspace.inspectRepository")(function*(
      repo: string,
      commits: ReadonlyArray<string>
    ) {
      const real = yield* files.realPath(repo).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(repositoryError(repo, "the directory does not exist.")), onSome: Effect.succeed }))
      )
      const topLevel = yield* git.run(["rev-parse", "--show-toplevel"], { cwd: real }).pipe(
        Effect.mapError((error) => {
          const stderr = error._tag === "GitError" ? error.stderr : ""
          return /dubious ownership/i.test(stderr)
            ? invalidArgument(notARepositoryReason(real, stderr))
            : repositoryError(repo, "it is not a Git repository.")
        })
      )
      const resolved = yield* Effect.forEach(commits, (commit) =>
        git.run(["rev-parse", "--verify", "--quiet", `${commit}^{commit}`], { cwd: topLevel }).pipe(
          Effect.mapError(() => notFound(`The commit ${excerpt(commit)} does not exist in ${excerpt(repo)}.`))
        ))
      return { repository: topLevel.trim(), commits: resolved.map((line) => line.trim()) }
    })

    /** Claude's patch between two commits of the user's repository (read only), within the patch ceilings like Codex's. */
    const historicalPatch = Effect.fn("Workspace.historicalPatch")(function*(repository: string, from: string, to: string) {
      const patch = patchCollector()
      // The files are listed apart from the patch, so one past the patch's cut is still named.
      const listing = numstatCollector(FILE_LIST_CEILING)
      const diff = ["diff", "--no-color", "--no-ext-diff"]
      yield* Effect.gen(function*() {
        yield* git.run([...diff, "--numstat", "-z", from, to], { cwd: repository, onStdout: listing.push })
        yield* git.run([...diff, from, to], { cwd: repository, onStdout: patch.push })
      }).pipe(Effect.mapError((error) => gitFailed("The historical Git diff could not be read", error.message)))
      const collected = patch.finish()
      const listed = listing.finish()
      return {
        ...collected,
        patch: withFinalNewline(collected.patch),
        listing: { files: listed.entries.map(changedFile), total: listed.total }
      } satisfies CollectedPatch
    })

    /**
     * Every directory that holds the repository at `directory` or its objects: the directory itself (real
     * path), its top level, its git directory and, for a `git worktree`, the common git directory (which
     * holds every branch's objects) and the main worktree. Agents must see none of them.
     */
    const repositoryRoots = Effect.fn("Workspace.repositoryRoots")(function*(directory: string) {
      const real = Option.getOrUndefined(yield* Effect.orElseSucceed(files.realPath(directory), () => Option.none<string>()))
      if (real === undefined) return { real: undefined, topLevel: undefined, all: [] as Array<string> }
      const located = yield* git.probe(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"], { cwd: real })
      const [topLevel, ...gitDirectories] = (located ?? "").split("\n").filter((line) => path.isAbsolute(line))
      const worktrees = topLevel === undefined ? undefined : yield* git.probe(["worktree", "list", "--porcelain"], { cwd: real })
      const main = /^worktree (.+)$/m.exec(worktrees ?? "")?.[1]
      const all = [real, ...(topLevel === undefined ? [] : [topLevel]), ...gitDirectories, ...(main === undefined ? [] : [main])]
      return { real, topLevel, all: [...new Set(all)] }
    })

    /** The mode and type of `relative` in `commit`'s tree (`100644 blob`, `120000 blob`, `040000 tree`…), if it is there. */
    const treeEntry = Effect.fn("Workspace.treeEntry")(function*(repository: string, commit: string, relative: string) {
      const listed = yield* git.run(["ls-tree", "-z", "--full-tree", commit, "--", relative], { cwd: repository }).pipe(
        Effect.mapError(() => notFound(`The commit ${excerpt(commit)} does not exist in ${excerpt(repository)}.`))
      )
      const entry = listed.split("\0").find((line) => line.slice(line.indexOf("\t") + 1) === relative)
      if (entry === undefined) return undefined
      const [mode = "", type = ""] = entry.slice(0, entry.indexOf("\t")).split(" ")
      return { mode, type }
    })

    /** The paths (from the top level) that differ between two commits. */
    const changedPaths = Effect.fn("Workspace.changedPaths")(function*(repository: string, from: string, to: string) {
      const listed = yield* git.run(["diff", "--name-only", "--no-renames", "-z", from, to], { cwd: repository }).pipe(
        Effect.mapError((error) => gitFailed("The historical Git diff could not be read", error.message))
      )
      return listed.split("\0").filter((line) => line !== "")
    })

    /**
     * init (no template, so no sample hooks), fetch of the one commit, checkout. The workspace is a
     * repository of its own that names nothing of the user's: the fetch writes no `FETCH_HEAD`, no
     * reflog is kept, no remote, alternate or worktree link is made, and it holds only the objects
     * reachable from the commit (upload-pack sends nothing else).
     */
    const fetchCommit = (directory: string, repository: string, commit: string, runTag: string | undefined) =>
      git.sequence(
        [
          ["init", "--quiet", "--template=", directory],
          ["-C", directory, "config", "core.logAllRefUpdates", "false"],
          [
            "-C", directory, ...LOCAL_TRANSPORT, "fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head",
            "--upload-pack=git-upload-pack", repository, commit
          ],
          ["-C", directory, "checkout", "--quiet", "--detach", commit]
        ],
        { cwd: path.dirname(directory), env: taggedEnvironment(runTag) }
      ).pipe(Effect.mapError((error) => gitFailed(`The workspace could not be created at ${commit}`, error.message)))

    const copyCarriedFiles = (plan: WorkspacePlan, directory: string) =>
      Effect.forEach(plan.carriedForwardFiles, (relative) =>
        Effect.gen(function*() {
          if (plan.repository === null) return yield* invalidArgument("Carried-forward files need a project directory (repo).")
          // Resolved through symlinks on both sides: a link must neither bring in a file from elsewhere
          // nor send the copy out of the workspace (a checked-out commit can contain links).
          const outside = () => invalidArgument(`The carried-forward file ${relative} is outside its root.`)
          const source = yield* files.resolveInside(plan.repository, relative).pipe(Effect.mapError(outside))
          const target = yield* files.resolveInside(directory, relative).pipe(Effect.mapError(outside))
          yield* files.copyFile(source, target).pipe(
            Effect.mapError((error) => new StorageError({ message: `The carried-forward file ${relative} could not be copied: ${error.message}` }))
          )
        }), { discard: true })

    /** Each name is a regular file of the checkout, reached through no link. */
    const ensureCheckedOutFiles = (names: ReadonlyArray<string>, directory: string) =>
      Effect.forEach(names, (relative) =>
        Effect.gen(function*() {
          let current = directory
          const parts = relative.split("/")
          for (const [index, part] of parts.entries()) {
            current = path.join(current, part)
            const type = Option.getOrUndefined(yield* Effect.orElseSucceed(files.linkType(current), () => Option.none()))
            const last = index === parts.length - 1
            if (part === ".." || type !== (last ? "File" : "Directory")) {
              return yield* invalidArgument(`The carried-forward file ${excerpt(relative)} is not a file of the starting commit.`)
            }
          }
        }), { discard: true })

    const writeCarriedContents = (plan: WorkspacePlan, directory: string) =>
      Effect.forEach(plan.carriedContents ?? [], (carried) =>
        Effect.gen(function*() {
          const target = yield* files.resolveInside(directory, carried.path).pipe(
            Effect.mapError(() => invalidArgument(`The carried-forward file ${excerpt(carried.path)} is outside the workspace.`))
          )
          yield* files.writeText(target, carried.content).pipe(
            Effect.mapError((error) => new StorageError({ message: `The carried-forward file ${excerpt(carried.path)} could not be written: ${error.message}` }))
          )
        }), { discard: true })

    /** The commit's committer time (seconds since the epoch) in the user's repository. */
    const commitTime = Effect.fn("Workspace.commitTime")(function*(repository: string, commit: string) {
      const output = yield* git.run(["show", "-s", "--format=%ct", commit], { cwd: repository }).pipe(
        Effect.mapError(() => notFound(`The commit ${excerpt(commit)} does not exist in ${excerpt(repository)}.`))
      )
      return Number(output.trim())
    })

    /**
     * Runs `last` against a private index that holds the workspace as it is now (starting from
     * `startFrom`, so unchanged files cost nothing); the workspace's own index is never touched.
     */
    const withWorkspaceIndex = (
      workspace: { directory: string; gitDir: string; runTag: string | undefined },
      startFrom: string,
      last: ReadonlyArray<string>
    ) =>
      Effect.gen(function*() {
        const index = path.join(path.dirname(workspace.directory), COLLECT_INDEX)
        const base = ["--git-dir", workspace.gitDir, "--work-tree", workspace.directory]
        const output = yield* git.sequence(
          [[...base, "read-tree", startFrom], [...base, "add", "--all", "."], [...base, ...last]],
          { cwd: workspace.directory, env: { ...taggedEnvironment(workspace.runTag), GIT_INDEX_FILE: index } }
        )
        yield* files.remove(index)
        return output
      }).pipe(Effect.mapError((error) =>
        error._tag === "GitError" ? gitFailed("The workspace could not be read", error.message) : error
      ))

    /** A fresh, empty bare repository of the daemon's beside the workspace (no template: no hooks). */
    const snapshotRepository = (parent: string, runTag: string | undefined) =>
      Effect.gen(function*() {
        const gitDir = path.join(parent, SNAPSHOT_GIT_DIR)
        yield* files.remove(gitDir)
        yield* git.run(["init", "--quiet", "--bare", "--template=", gitDir], { cwd: parent, env: taggedEnvironment(runTag) }).pipe(
          Effect.mapError((error) => gitFailed("The workspace snapshot could not be created", error.message))
        )
        return gitDir
      })

    /** Creates `workspaces/codex` (or `workspaces/<name>`) in the run directory, which must not exist yet. */
    const materialise = Effect.fn("Workspace.materialise")(function*(
      runDirectory: string,
      plan: WorkspacePlan,
      runTag?: string,
      name: string = IMPLEMENTATION_WORKSPACE
    ) {
      const parent = path.join(runDirectory, WORKSPACES_DIRECTORY)
      const directory = path.join(parent, name)
      yield* files.ensurePrivateDirectoryInside(runDirectory, parent)
      if (yield* files.exists(directory)) return yield* conflict("The implementation workspace already exists.")
      if (plan.kind === "git") {
        if (plan.repository === null || plan.commit === null) return yield* invalidArgument("The historical Git commit is missing.")
        yield* fetchCommit(directory, plan.repository, plan.commit, runTag)
        // Carried-forward files of a Git beginning are files of the starting commit (checked at prepare
        // and start), so the checkout already holds them as they were; nothing is copied from the user's
        // working directory, which is in Claude's end state.
        yield* ensureCheckedOutFiles(plan.carriedForwardFiles, directory)
        yield* writeCarriedContents(plan, directory)
        // Collecting reads the baseline's objects from the workspace, but never its configuration or hooks.
        const gitDir = yield* snapshotRepository(parent, runTag)
        yield* files.writeText(path.join(gitDir, "objects", "info", "alternates"), `${path.join(directory, ".git", "objects")}\n`, 0o600)
        // Carried files are where the agent starts, not its work: the diff is taken against them too.
        const base = (plan.carriedContents ?? []).length === 0
          ? plan.commit
          : (yield* withWorkspaceIndex({ directory, gitDir, runTag }, plan.commit, ["write-tree"])).trim()
        return { directory, gitDir, base, runTag } satisfies MaterialisedWorkspace
      }
      yield* files.ensurePrivateDirectoryInside(runDirectory, directory)
      yield* copyCarriedFiles(plan, directory)
      yield* writeCarriedContents(plan, directory)
      const gitDir = yield* snapshotRepository(parent, runTag)
      const base = (yield* withWorkspaceIndex({ directory, gitDir, runTag }, EMPTY_TREE, ["write-tree"])).trim()
      return { directory, gitDir, base, runTag } satisfies MaterialisedWorkspace
    })

    /** Renames the failed attempt's workspace to `codex-attempt-N-failed`. */
    const archiveFailed = Effect.fn("Workspace.archiveFailed")(function*(runDirectory: string, attempt: number) {
      const parent = path.join(runDirectory, WORKSPACES_DIRECTORY)
      const archived = path.join(parent, archivedWorkspaceName(attempt))
      if (yield* files.exists(archived)) return yield* conflict("The failed implementation workspace was already archived.")
      yield* files.rename(path.join(parent, IMPLEMENTATION_WORKSPACE), archived).pipe(
        Effect.mapError((error) => new StorageError({ message: `The failed implementation workspace could not be archived: ${error.message}` }))
      )
      yield* Effect.ignore(runLog.append(runDirectory, "controller", `archived failed implementation attempt ${attempt} workspace at ${archived}`))
      return archived
    })

    /** The size of each binary file as the agent left it (0 when it deleted it); a stat, never a read. */
    const withSizes = (directory: string, entries: ReadonlyArray<NumstatEntry>) =>
      Effect.forEach(entries, (entry) =>
        entry.binary
          ? Effect.map(
            // Its own size, never a link's target's: an agent's link cannot tell the size of a file outside.
            Effect.orElseSucceed(files.ownSize(path.join(directory, entry.path)), () => Option.none<number>()),
            (size): ChangedFile => ({ ...changedFile(entry), bytes: Option.getOrElse(size, () => 0) })
          )
          : Effect.succeed(changedFile(entry)), { concurrency: 8 })

    /**
     * The workspace's changes against its start, new files included, read within the ceilings on agent
     * output (domain/report/ceilings.ts): git's output streams through collectors that keep at most the
     * patch and file ceilings and the file-list ceiling, so a gigabyte in the workspace costs the daemon
     * nothing but the time to count it. Binary files are listed with their size, never inlined. The
     * workspace itself is not changed.
     */
    const collect = Effect.fn("Workspace.collect")(function*(workspace: MaterialisedWorkspace) {
      const index = path.join(path.dirname(workspace.directory), COLLECT_INDEX)
      const base = ["--git-dir", workspace.gitDir, "--work-tree", workspace.directory]
      const options = { cwd: workspace.directory, env: { ...taggedEnvironment(workspace.runTag), GIT_INDEX_FILE: index } }
      const listing = numstatCollector(FILE_LIST_CEILING)
      const patch = patchCollector()
      yield* Effect.gen(function*() {
        yield* git.sequence([[...base, "read-tree", workspace.base], [...base, "add", "--all", "."]], options)
        const diff = [...base, "diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv"]
        yield* git.run([...diff, "--numstat", "-z", workspace.base], { ...options, onStdout: listing.push })
        yield* git.run([...diff, workspace.base], { ...options, onStdout: patch.push })
      }).pipe(
        Effect.mapError((error) => gitFailed("The workspace could not be read", error.message)),
        Effect.ensuring(Effect.ignore(files.remove(index)))
      )
      const listed = listing.finish()
      const collected = patch.finish()
      const bounded = boundFileList(listed.entries, listed.total)
      return {
        patch: withFinalNewline(collected.patch),
        files: yield* withSizes(workspace.directory, bounded.entries),
        cuts: bounded.cut === null ? collected.cuts : [...collected.cuts, bounded.cut],
        patch_bytes: collected.total_bytes
      } satisfies CollectedChanges
    })

    /** The workspace's patch alone (see `collect`). */
    const diff = (workspace: MaterialisedWorkspace) => Effect.map(collect(workspace), (collected) => collected.patch)

    return {
      inspectRepository,
      historicalPatch,
      commitTime,
      repositoryRoots,
      treeEntry,
      changedPaths,
      materialise,
      archiveFailed,
      collect,
      diff
    } as const
  }),
  dependencies: [FileStore.Default, RunLog.Default]
}) {}
