import { Chunk, Effect, Fiber, Layer, Option, TestClock } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { WorkerError } from "../../src/domain/errors.js"
import type { CandidateResult } from "../../src/domain/review/anonymize.js"
import { CodexWorker } from "../../src/services/CodexWorker.js"
import { FileStore } from "../../src/services/FileStore.js"
import { Review, type ReviewInput } from "../../src/services/Review.js"
import { RunLog } from "../../src/services/RunLog.js"

export const CODEX_MARK = "side-one-marker"
export const CLAUDE_MARK = "side-two-marker"

export const codexResult: CandidateResult = {
  patch: `diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,2 @@\n keep\n+${CODEX_MARK}\n`,
  final_response: "I, Codex, added the line.",
  files: [{ path: "a.txt", additions: 1, deletions: 0 }]
}

export const claudeResult: CandidateResult = {
  patch: `diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,3 @@\n keep\n+${CLAUDE_MARK}\n+Co-Authored-By: Claude <noreply@anthropic.com>\n`,
  final_response: "Done.\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)",
  files: [{ path: "a.txt", additions: 2, deletions: 0 }]
}

export const makeRunDirectory = () =>
  Effect.promise(async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-review-"))
    const runDirectory = path.join(root, "run-1")
    await fs.mkdir(runDirectory, { mode: 0o700 })
    await fs.mkdir(reviewerTemporaryDirectory(runDirectory), { mode: 0o700 })
    return runDirectory
  })

/** Where these tests let the reviewer workspaces of `runDirectory` be created (a stand-in for the system's temporary directory). */
export const reviewerTemporaryDirectory = (runDirectory: string) => path.join(path.dirname(runDirectory), "tmp")

export const reviewInput = (runDirectory: string, overrides: Partial<ReviewInput> = {}): ReviewInput => ({
  runDirectory,
  request: "Add a line to a.txt.",
  codex: codexResult,
  claude: claudeResult,
  model: "gpt-review",
  mapping: { A: "codex", B: "claude" },
  workspaceParent: reviewerTemporaryDirectory(runDirectory),
  ...overrides
})

export const retryableFailure = (message = "stream disconnected before completion") =>
  new WorkerError({
    code: "stream_error",
    message,
    retryable: true,
    diagnostic: { worker_code: "stream_error", exit_code: 1, system_code: null, worker_stage: "turn", elapsed_ms: 5 }
  })

export const fatalFailure = (message: string, code = "bad_request", raw_output?: string) =>
  new WorkerError({
    code,
    message,
    retryable: false,
    diagnostic: { worker_code: code, exit_code: 1, system_code: null, worker_stage: "turn", elapsed_ms: 5 },
    ...(raw_output === undefined ? {} : { raw_output })
  })

type Respond = Parameters<typeof CodexWorker.fake>[0]

/** The Review service over a fake worker and the real file store and run log. */
export const reviewLayer = (respond: Respond) =>
  Review.DefaultWithoutDependencies.pipe(
    Layer.provideMerge(Layer.mergeAll(CodexWorker.fake(respond), RunLog.Default, FileStore.Default))
  )

export const readText = (file: string) => Effect.promise(() => fs.readFile(file, "utf8"))
export const readJsonFile = (file: string) => Effect.map(readText(file), (text) => JSON.parse(text) as unknown)
export const listDirectory = (directory: string) => Effect.promise(() => fs.readdir(directory).catch(() => [] as Array<string>))

/** Drives the TestClock until `fiber` ends: each pending sleep is reached as soon as it is scheduled. */
export const runWithTestClock = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
  Effect.gen(function*() {
    for (;;) {
      const exit = yield* Fiber.poll(fiber)
      if (exit._tag === "Some") return yield* Fiber.join(fiber)
      const sleeps = yield* TestClock.sleeps()
      const next = Chunk.head(sleeps)
      if (Option.isSome(next)) {
        yield* TestClock.setTime(next.value)
      } else {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
      }
    }
  })
