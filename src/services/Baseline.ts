import { Effect, Either } from "effect"
import { notARepositoryReason } from "../domain/gitRefusal.js"
import { emptyBeginningHint, repositoryHint } from "../domain/unblock.js"
import * as path from "node:path"
import type { ProjectInstructions } from "../domain/history/capabilities.js"
import type { ChangedFile } from "../domain/history/changes.js"
import type { StateKind } from "../domain/runConfig.js"
import { Git } from "./Git.js"
import { FileStore } from "./FileStore.js"

export type { StateKind }

export interface BaselineRequest {
  readonly projectDir: string | null
  readonly startedAt: string | null
  readonly endedAt: string | null
  readonly gitBranch: string | null
  readonly changedFiles: ReadonlyArray<ChangedFile>
  /** Values the user reviewed in the UI; they win over the proposal. */
  readonly repo?: string | undefined
  readonly beginningKind?: StateKind | undefined
  readonly endingKind?: StateKind | undefined
  readonly baselineCommit?: string | undefined
  readonly endingCommit?: string | undefined
  readonly excludedFiles?: ReadonlyArray<string> | undefined
  /** A packaged sample's recorded folder is never on this machine: no repository folder is offered for it. */
  readonly sample?: boolean | undefined
}

export interface FileCandidate {
  readonly path: string
  readonly kind: "created" | "modified"
  readonly selectable: boolean
  readonly selected: boolean
  readonly by_subagent: boolean
  readonly abandoned: boolean
  readonly reason?: string
}

export interface FileSelection {
  readonly source_kind: StateKind
  readonly candidates: ReadonlyArray<FileCandidate>
  readonly requires_confirmation: boolean
  readonly requires_empty_beginning_confirmation: boolean
  readonly preexisting_files: ReadonlyArray<string>
  readonly complete: boolean
}

export interface BaselineRecord {
  readonly repository: string | null
  readonly source_kind: StateKind
  readonly beginning_kind: StateKind
  readonly ending_kind: StateKind
  readonly commit: string | null
  readonly ending_commit: string | null
  readonly branch: string | null
  readonly evidence: ReadonlyArray<string>
}

export interface BaselineProposal {
  readonly baseline: BaselineRecord
  readonly file_selection: FileSelection
  readonly questions: ReadonlyArray<string>
  readonly repository_blocking_reasons: ReadonlyArray<string>
  readonly blocking_reasons: ReadonlyArray<string>
  /** CLAUDE.md / AGENTS.md at the starting state, for the capability check. */
  readonly instructions: ProjectInstructions | undefined
}

const ENDING_GRACE_SECONDS = 60 * 60
const LATE_COMMIT_SECONDS = 7 * 24 * 60 * 60
const COMMIT = /^[0-9a-f]{40}$/

const seconds = (iso: string | null) => (iso === null ? undefined : Math.floor(Date.parse(iso) / 1000))
const short = (sha: string) => sha.slice(0, 7)
const isoAt = (unix: number) => new Date(unix * 1000).toISOString()

/** A project directory (or file in it) that cannot even be looked at counts as not on this machine. */

const liveFiles = (files: ReadonlyArray<ChangedFile>) => files.filter((file) => !file.abandoned && !file.outside_project)

/**
 * Proposes where a replay starts and ends. For a git repository on this machine: the branch tip at the
 * session's start (reflog when it covers that time, else commit dates) and the last commit of the session
 * window touching the files Claude changed. Otherwise a non-git selection of Claude's changed files.
 * The user's repository is only read.
 */
export class Baseline extends Effect.Service<Baseline>()("codex-replay/Baseline", {
  effect: Effect.gen(function*() {
    const git = yield* Git
    const files = yield* FileStore
    const isDirectory = (candidate: string) => Effect.orElseSucceed(files.isDirectory(candidate), () => false)
    const exists = (candidate: string) => Effect.orElseSucceed(files.exists(candidate), () => false)

    const nonGit = Effect.fn("Baseline.nonGit")(function*(
      request: BaselineRequest,
      repository: string | null,
      evidence: ReadonlyArray<string>
    ) {
      const excluded = new Set(request.excludedFiles ?? [])
      const candidates: Array<FileCandidate> = request.changedFiles.map((file) => ({
        path: file.path,
        kind: file.kind,
        selectable: !file.outside_project && file.final_content !== null,
        selected: !file.abandoned && !file.outside_project && !excluded.has(file.path),
        by_subagent: file.by_subagent,
        abandoned: file.abandoned,
        ...(file.outside_project
          ? { reason: "Outside the project directory." }
          : file.final_content === null
          ? { reason: "Its final content cannot be rebuilt from the transcript." }
          : file.abandoned
          ? { reason: "Changed only on an abandoned (rewound) branch." }
          : {})
      }))
      const preexisting = liveFiles(request.changedFiles).filter((file) => file.kind === "modified").map((file) => file.path)
      const questions: Array<string> = []
      if (preexisting.length > 0) {
        questions.push(
          `Claude modified ${preexisting.length} file(s) that existed before the session (${preexisting.join(", ")}). ` +
            `A non-git replay starts from an empty folder: ${repositoryHint()}, or accept the empty beginning (${emptyBeginningHint()}).`
        )
      }
      if (liveFiles(request.changedFiles).length === 0) {
        questions.push("Claude changed no files with its file tools; the comparison covers the final answer only.")
      }
      const instructions = repository === null || !(yield* isDirectory(repository)) ? undefined : {
        claudeMd: yield* exists(path.join(repository, "CLAUDE.md")),
        agentsMd: yield* exists(path.join(repository, "AGENTS.md")),
        where: "The project directory"
      }
      return {
        baseline: {
          repository,
          source_kind: "non_git",
          beginning_kind: "non_git",
          ending_kind: "non_git",
          commit: null,
          ending_commit: null,
          branch: null,
          evidence
        },
        file_selection: {
          source_kind: "non_git",
          candidates,
          requires_confirmation: candidates.length > 0,
          requires_empty_beginning_confirmation: true,
          preexisting_files: preexisting,
          complete: candidates.every((candidate) => !candidate.selected || candidate.selectable)
        },
        questions,
        repository_blocking_reasons: [],
        blocking_reasons: [],
        instructions
      } satisfies BaselineProposal
    })

    const resolveCommit = (toplevel: string, revision: string) =>
      git.probe(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`], { cwd: toplevel }).pipe(
        Effect.map((out) => (out !== undefined && COMMIT.test(out.trim()) ? out.trim() : undefined))
      )

    /** The branch tip at `start`: newest reflog entry not after it, else the last commit dated before it. */
    const findBeginningCommit = Effect.fn("Baseline.findBeginningCommit")(function*(
      toplevel: string,
      ref: string,
      label: string,
      start: number
    ) {
      const reflog = yield* git.probe(
        ["reflog", "show", "--date=unix", "--format=%H%x09%gd%x09%gs", ref.startsWith("refs/") ? ref : "HEAD"],
        { cwd: toplevel }
      )
      const entries = (reflog ?? "").split("\n").flatMap((line) => {
        const [sha, selector, subject] = line.split("\t")
        const time = Number(/@\{(\d+)\}$/.exec(selector ?? "")?.[1])
        return sha !== undefined && COMMIT.test(sha) && Number.isFinite(time) ? [{ sha, time, subject: subject ?? "" }] : []
      })
      const atStart = entries.filter((entry) => entry.time <= start).sort((a, b) => b.time - a.time)[0]
      if (atStart !== undefined) {
        return {
          commit: atStart.sha,
          certain: true,
          evidence: `Reflog: ${label} pointed at ${short(atStart.sha)} at ${isoAt(atStart.time)} (${atStart.subject}), ` +
            `the last move before the session started at ${isoAt(start)}.`
        }
      }
      const byDate = yield* git.probe(["rev-list", "-1", `--before=${start}`, ref], { cwd: toplevel })
      const sha = byDate?.trim()
      if (sha === undefined || !COMMIT.test(sha)) return undefined
      return {
        commit: sha,
        certain: false,
        evidence: `Commit dates: ${short(sha)} is the last commit on ${label} dated before the session started at ` +
          `${isoAt(start)} (${entries.length === 0 ? "no reflog" : "the reflog does not reach back that far"}).`
      }
    })

    /** The last commit in the session window that touches Claude's files, else the first one after it. */
    const findEndingCommit = Effect.fn("Baseline.findEndingCommit")(function*(
      toplevel: string,
      ref: string,
      files: ReadonlyArray<string>,
      start: number,
      end: number
    ) {
      if (files.length === 0) return undefined
      const search = (since: number, until: number) =>
        git.lines(["log", "--format=%H%x09%ct%x09%s", `--since=@${since}`, `--until=@${until}`, ref, "--", ...files], {
          cwd: toplevel
        }).pipe(Effect.orElseSucceed(() => [] as Array<string>))
      const parse = (line: string) => {
        const [sha, time, subject] = line.split("\t")
        return { sha: sha ?? "", time: Number(time), subject: subject ?? "" }
      }
      const inWindow = (yield* search(start, end + ENDING_GRACE_SECONDS)).map(parse)
      const newest = inWindow[0]
      if (newest !== undefined) {
        return {
          commit: newest.sha,
          certain: true,
          evidence: `${short(newest.sha)} (${newest.subject}, ${isoAt(newest.time)}) is the last commit of the session ` +
            `window touching the files Claude changed (${inWindow.length} such commit(s)).`
        }
      }
      const later = (yield* search(end, end + LATE_COMMIT_SECONDS)).map(parse)
      const earliest = later[later.length - 1]
      if (earliest === undefined) return undefined
      return {
        commit: earliest.sha,
        certain: false,
        evidence: `No commit of the session window touches Claude's files; ${short(earliest.sha)} (${earliest.subject}, ` +
          `${isoAt(earliest.time)}) is the first later commit that does.`
      }
    })

    const gitProposal = Effect.fn("Baseline.gitProposal")(function*(
      request: BaselineRequest,
      repository: string,
      toplevel: string
    ) {
      const evidence: Array<string> = [`${repository} is a Git repository (top level ${toplevel}).`]
      const questions: Array<string> = []
      const blocking: Array<string> = []
      const recorded = request.gitBranch !== null && request.gitBranch !== "HEAD" ? request.gitBranch : undefined
      const branchExists = recorded !== undefined &&
        (yield* resolveCommit(toplevel, `refs/heads/${recorded}`)) !== undefined
      if (recorded !== undefined && !branchExists) {
        questions.push(`The session's branch "${recorded}" no longer exists here; the commits were looked up on HEAD.`)
      }
      const ref = branchExists ? `refs/heads/${recorded}` : "HEAD"
      const label = branchExists ? recorded! : "HEAD"
      const start = seconds(request.startedAt)
      const end = seconds(request.endedAt) ?? start

      let commit: string | null = null
      if (request.baselineCommit !== undefined) {
        commit = (yield* resolveCommit(toplevel, request.baselineCommit)) ?? null
        if (commit === null) blocking.push(`The historical Git commit ${request.baselineCommit} does not exist in ${toplevel}.`)
        else evidence.push(`Beginning ${short(commit)} was chosen by you.`)
      } else if (start !== undefined) {
        const found = yield* findBeginningCommit(toplevel, ref, label, start)
        if (found === undefined) {
          blocking.push(`No commit on ${label} is older than the session start; choose the historical Git commit.`)
        } else {
          commit = found.commit
          evidence.push(found.evidence)
          if (!found.certain) questions.push(`Confirm the beginning commit ${short(found.commit)}: it was chosen by commit date.`)
        }
      } else {
        blocking.push("The session has no timestamps; choose the historical Git commit.")
      }

      const prefix = path.relative(toplevel, path.resolve(repository))
      const files = liveFiles(request.changedFiles).map((file) => path.posix.join(prefix.split(path.sep).join("/"), file.path))
      let endingCommit: string | null = null
      if (request.endingCommit !== undefined) {
        endingCommit = (yield* resolveCommit(toplevel, request.endingCommit)) ?? null
        if (endingCommit === null) {
          blocking.push(`The historical ending Git commit ${request.endingCommit} does not exist in ${toplevel}.`)
        } else evidence.push(`Ending ${short(endingCommit)} was chosen by you.`)
      } else if (start !== undefined && end !== undefined) {
        const found = yield* findEndingCommit(toplevel, ref, files, start, end)
        if (found === undefined) {
          questions.push(
            files.length === 0
              ? "Claude changed no files with its file tools; choose the ending commit that holds its work."
              : "No commit touches the files Claude changed; were they committed elsewhere or left uncommitted?"
          )
          blocking.push("Choose the historical ending Git commit.")
        } else {
          endingCommit = found.commit
          evidence.push(found.evidence)
          if (!found.certain) questions.push(`Confirm the ending commit ${short(found.commit)}: it was made after the session.`)
        }
      }
      if (commit !== null && endingCommit !== null && commit !== endingCommit) {
        const ordered = yield* git.probe(["merge-base", "--is-ancestor", commit, endingCommit], { cwd: toplevel })
        if (ordered === undefined) blocking.push(`The ending commit ${short(endingCommit)} does not descend from the beginning ${short(commit)}.`)
      }
      const instructions = commit === null ? undefined : yield* instructionsAt(toplevel, commit, prefix)
      return {
        baseline: {
          repository: toplevel,
          source_kind: "git",
          beginning_kind: "git",
          ending_kind: "git",
          commit,
          ending_commit: endingCommit,
          branch: label,
          evidence
        },
        file_selection: {
          source_kind: "git",
          candidates: request.changedFiles.map((file) => ({
            path: file.path,
            kind: file.kind,
            selectable: false,
            selected: !file.abandoned,
            by_subagent: file.by_subagent,
            abandoned: file.abandoned
          })),
          requires_confirmation: false,
          requires_empty_beginning_confirmation: false,
          preexisting_files: [],
          complete: true
        },
        questions,
        repository_blocking_reasons: [],
        blocking_reasons: blocking,
        instructions
      } satisfies BaselineProposal
    })

    const instructionsAt = (toplevel: string, commit: string, prefix: string) => {
      const inProject = (name: string) => (prefix === "" ? name : path.posix.join(prefix, name))
      return git.lines(["ls-tree", "--name-only", commit, "--", inProject("CLAUDE.md"), inProject("AGENTS.md")], {
        cwd: toplevel
      }).pipe(
        Effect.map((names): ProjectInstructions => ({
          claudeMd: names.includes(inProject("CLAUDE.md")),
          agentsMd: names.includes(inProject("AGENTS.md")),
          where: `The starting commit ${short(commit)}`
        })),
        Effect.orElseSucceed(() => undefined)
      )
    }

    const propose = Effect.fn("Baseline.propose")(function*(request: BaselineRequest) {
      const repository = request.repo ?? request.projectDir
      if (repository === null) return yield* nonGit(request, null, ["The thread records no project directory."])
      if (!(yield* isDirectory(repository))) {
        const proposal = yield* nonGit(request, repository, [`${repository} does not exist on this machine.`])
        if (request.repo !== undefined || request.sample === true) return proposal
        // The recorded folder moved or was deleted: the way back to a like-for-like replay is the repository's new place.
        const moved = `The thread's folder ${repository} is not on this machine; if its repository moved, ${repositoryHint()}.`
        return { ...proposal, questions: [moved, ...proposal.questions] }
      }
      const probed = yield* git.run(["rev-parse", "--show-toplevel"], { cwd: repository }).pipe(Effect.either)
      const toplevel = Either.isRight(probed) ? probed.right.trim() : ""
      if (toplevel === "") {
        const stderr = Either.isLeft(probed) && probed.left._tag === "GitError" ? probed.left.stderr : ""
        return yield* nonGit(request, repository, [notARepositoryReason(repository, stderr)])
      }
      if (request.beginningKind === "non_git") {
        return yield* nonGit(request, repository, ["You chose a non-git beginning."])
      }
      return yield* gitProposal(request, repository, toplevel)
    })

    return { propose } as const
  }),
  dependencies: [Git.Default, FileStore.Default]
}) {}
