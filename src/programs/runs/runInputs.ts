/**
 * What a replay's configuration may name on this machine, checked at `prepare_run` and again at
 * `start_run` (both read the historical side through `readHistorical`):
 *
 * - **The repository is the thread's own.** `repo` is accepted when its real path, or the top level of
 *   the repository holding it, is the thread's recorded working directory or that directory's top
 *   level. Any other folder is the user's own choice, which the request must say
 *   (`--repo`, or the Configure page's "I have reviewed this repository and these commits" box); it is
 *   never accepted for a packaged sample (whose repository ships with it), nor inside the controller's
 *   cache or Claude's configuration directory.
 * - **Carried-forward files are the start's, not Claude's.** For a whole-thread replay each name must be a
 *   plain relative path inside the repository, reach no link, be a regular file at the start (in the
 *   starting commit for a Git beginning, in the project directory for an empty one), and be a file Claude
 *   did not change: not among its recorded edits and, for Git, not changed between the two commits.
 */
import { Effect, Option } from "effect"
import * as path from "node:path"
import { invalidArgument } from "../../domain/errors.js"
import type { ThreadRecord } from "../../domain/history/session.js"
import { isChunk, type RunConfiguration } from "../../domain/runConfig.js"
import { excerpt } from "../../domain/toolResult.js"
import { CONTROLS } from "../../domain/unblock.js"
import { FileStore, isInside } from "../../services/FileStore.js"
import { Settings } from "../../services/Settings.js"
import { Workspace } from "../../services/Workspace.js"

const realOrUndefined = (target: string) =>
  Effect.flatMap(FileStore, (files) => Effect.map(Effect.orElseSucceed(files.realPath(target), () => Option.none<string>()), Option.getOrUndefined))

/**
 * Whether `real` lies in the controller's cache (every run root and controller included) or Claude's
 * configuration directory, when `within` (the repository it is taken from) does not lie there itself.
 */
const insideGuarded = (real: string, within?: string) =>
  Effect.gen(function*() {
    const settings = yield* Settings
    for (const directory of [settings.cacheRoot, settings.runRoot, settings.controllersRoot, settings.claudeConfigDir]) {
      const guardedReal = (yield* realOrUndefined(directory)) ?? path.resolve(directory)
      if (isInside(guardedReal, real) && (within === undefined || !isInside(guardedReal, within))) return true
    }
    return false
  })

/**
 * Refuses a `repo` that is not the thread's own and not marked as the user's choice (see above), and
 * answers the folders agents must not read: every folder of the repository and of the thread's recorded
 * working directory (`Workspace.repositoryRoots`).
 */
export const ensureThreadRepository = Effect.fn("runInputs.ensureThreadRepository")(function*(
  configuration: RunConfiguration,
  record: ThreadRecord
) {
  const workspace = yield* Workspace
  const own = record.project_dir === null ? undefined : yield* workspace.repositoryRoots(record.project_dir)
  const chosen = configuration.repo === null ? undefined : yield* workspace.repositoryRoots(configuration.repo)
  const hidden = [...new Set([...(chosen?.all ?? []), ...(own?.all ?? [])])]
  // No folder, or one that is not there (refused later, in the words of the step that needs it).
  const real = chosen?.real
  if (configuration.repo === null || real === undefined) return hidden
  const ownDirectories = [own?.real, own?.topLevel].filter((root): root is string => root !== undefined)
  if (ownDirectories.includes(real) || (chosen?.topLevel !== undefined && ownDirectories.includes(chosen.topLevel))) return hidden
  const named = excerpt(configuration.repo)
  if (record.source === "sample") {
    return yield* invalidArgument(`The packaged sample ${configuration.thread_id} replays only its own repository, and ${named} is not it.`)
  }
  if (yield* insideGuarded(real)) {
    return yield* invalidArgument(`The folder ${named} belongs to Codex Replay or to Claude, so it cannot be a replay's repository.`)
  }
  if (!configuration.confirm_repository_selection) {
    return yield* invalidArgument(
      `The folder ${named} is not the thread's working directory (${excerpt(record.project_dir ?? "none recorded")}): ` +
        `to replay the thread there, pass --repo ${named} or tick “${CONTROLS.reviewedRepository}” in Configure.`
    )
  }
  return hidden
})

/** A relative path that stays where it is put: no `..`, `.`, empty or `.git` part, not absolute. */
const isPlainRelative = (name: string) =>
  name !== "" && !path.isAbsolute(name) && !name.includes("\\") &&
  name.split("/").every((part) => part !== "" && part !== "." && part !== ".." && part.toLowerCase() !== ".git")

/** The files Claude edited (from its transcript), as absolute paths. */
const editedPaths = (record: ThreadRecord, projectReal: string | undefined) =>
  record.historical_changed_files.map((file) =>
    path.isAbsolute(file.path) ? path.resolve(file.path) : path.resolve(projectReal ?? record.project_dir ?? "/", file.path)
  )

/** Whether `relative` reaches a link or anything but a regular file below `root` (every part is looked at, none followed). */
const plainFileBelow = (root: string, relative: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const parts = relative.split("/")
    let current = root
    for (const [index, part] of parts.entries()) {
      current = path.join(current, part)
      const type = Option.getOrUndefined(yield* Effect.orElseSucceed(files.linkType(current), () => Option.none()))
      if (type === undefined) return "missing" as const
      if (type === "SymbolicLink") return "link" as const
      if (index === parts.length - 1 && type !== "File") return "not a file" as const
    }
    return "file" as const
  })

const refuse = (name: string, why: string) => invalidArgument(`The carried-forward file ${excerpt(name)} ${why}`)

/**
 * Refuses every carried-forward file of a whole-thread replay that is not a file of the start state
 * Claude left alone. `repository` is the real top level (Git) or project directory (empty beginning).
 */
export const ensureCarriedFiles = Effect.fn("runInputs.ensureCarriedFiles")(function*(
  configuration: RunConfiguration,
  record: ThreadRecord,
  repository: string | null,
  commits: { readonly baseline: string; readonly ending: string } | null
) {
  // A chunk's carried files are Claude's own earlier files, checked against its transcript (resolveChunk).
  if (isChunk(configuration) || configuration.carried_forward_files.length === 0) return
  if (repository === null) return yield* invalidArgument("Carried-forward files need the project directory (repo) they come from.")
  const workspace = yield* Workspace
  const projectReal = record.project_dir === null ? undefined : yield* realOrUndefined(record.project_dir)
  const edited = new Set(editedPaths(record, projectReal))
  const changedInRange = commits === null ? new Set<string>() : new Set(yield* workspace.changedPaths(repository, commits.baseline, commits.ending))
  for (const name of configuration.carried_forward_files) {
    if (!isPlainRelative(name)) return yield* refuse(name, "is not a path inside the repository.")
    if (edited.has(path.resolve(repository, name)) || changedInRange.has(name)) {
      return yield* refuse(name, "was changed by Claude in the replayed range, so it is part of Claude's result, not of the start.")
    }
    if (commits !== null) {
      const entry = yield* workspace.treeEntry(repository, commits.baseline, name)
      if (entry === undefined) return yield* refuse(name, "does not exist in the starting commit.")
      if (entry.mode === "120000") return yield* refuse(name, "is a symbolic link in the starting commit.")
      if (entry.type !== "blob") return yield* refuse(name, "is not a file in the starting commit.")
      continue
    }
    const found = yield* plainFileBelow(repository, name)
    if (found === "missing") return yield* refuse(name, "does not exist in the project directory.")
    if (found === "link") return yield* refuse(name, "is reached through a symbolic link.")
    if (found === "not a file") return yield* refuse(name, "is not a regular file.")
    if (yield* insideGuarded(path.join(repository, name), repository)) return yield* refuse(name, "belongs to Codex Replay or to Claude.")
  }
})
