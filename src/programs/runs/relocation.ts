/**
 * A thread pointed at its repository's current place (`replay --repo PATH`, Configure's “Repository
 * folder”, `repository_path`). The folder must be a Git repository holding the thread's start: the
 * commit the configuration names, or else the one the thread's session started from, found there as
 * `inspect_thread` finds it (reflog, then commit dates). The replay then starts from that commit in that
 * repository, which the run's comparability records as relocated. Anything else is one sentence, and
 * nothing is prepared or started.
 */
import { Effect, Either } from "effect"
import { invalidArgument } from "../../domain/errors.js"
import type { RunConfiguration } from "../../domain/runConfig.js"
import { excerpt } from "../../domain/toolResult.js"
import { repositoryHint } from "../../domain/unblock.js"
import { Baseline } from "../../services/Baseline.js"
import { FileStore } from "../../services/FileStore.js"
import { Git } from "../../services/Git.js"
import { threadRecordById } from "../threads/threads.js"

const short = (commit: string) => commit.slice(0, 12)

/** The configuration as it replays from `repository_path`; unchanged without one. */
export const relocated = Effect.fn("runs.relocated")(function*(configuration: RunConfiguration) {
  const folder = configuration.repository_path
  if (folder === undefined) return configuration
  const named = excerpt(folder)
  const refuse = (what: string) => invalidArgument(`${what}: ${repositoryHint()}.`)
  const files = yield* FileStore
  if (!(yield* Effect.orElseSucceed(files.isDirectory(folder), () => false))) return yield* refuse(`The folder ${named} does not exist`)
  const git = yield* Git
  const probed = yield* Effect.either(git.run(["rev-parse", "--show-toplevel"], { cwd: folder }))
  const topLevel = Either.isRight(probed) ? probed.right.trim() : ""
  if (topLevel === "") return yield* refuse(`The folder ${named} is not a Git repository`)
  const holds = (commit: string) =>
    Effect.map(git.probe(["rev-parse", "--verify", "--quiet", `${commit}^{commit}`], { cwd: topLevel }), (out) => out?.trim() || undefined)

  if (configuration.beginning_kind === "git" && configuration.baseline_commit !== null) {
    // The commits the configuration names (Configure showed them) must be in this repository.
    const baseline = yield* holds(configuration.baseline_commit)
    if (baseline === undefined) {
      return yield* refuse(`The folder ${named} does not contain the thread's start commit ${short(configuration.baseline_commit)}`)
    }
    const ending = configuration.ending_commit === null ? baseline : yield* holds(configuration.ending_commit)
    if (ending === undefined) {
      return yield* refuse(`The folder ${named} does not contain the thread's ending commit ${short(configuration.ending_commit ?? "")}`)
    }
    return { ...configuration, repo: folder, baseline_commit: baseline, ending_commit: ending, confirm_repository_selection: true }
  }

  // No commit named: the thread's start as its session recorded it, looked up in this repository.
  const record = yield* threadRecordById(configuration.thread_id)
  const chunkStart = configuration.range_start === null
    ? undefined
    : record.split_points.find((point) => point.message_id === configuration.range_start)?.timestamp
  const proposal = yield* (yield* Baseline).propose({
    projectDir: record.project_dir,
    startedAt: chunkStart ?? record.started_at,
    endedAt: record.ended_at,
    gitBranch: record.git_branch,
    changedFiles: record.historical_changed_files,
    repo: folder,
    beginningKind: "git"
  })
  const { commit, ending_commit: ending } = proposal.baseline
  if (commit === null) {
    return yield* refuse(`The folder ${named} holds no commit from before the thread started, so it does not contain the thread's start commit`)
  }
  if (ending === null) {
    return yield* refuse(`The folder ${named} holds no commit with Claude's work on the thread's files after ${short(commit)}`)
  }
  return {
    ...configuration,
    repo: folder,
    beginning_kind: "git" as const,
    ending_kind: "git" as const,
    baseline_commit: commit,
    ending_commit: ending,
    confirm_empty_beginning: false,
    confirm_repository_selection: true
  }
})
