import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { CodexWorker } from "../../../src/services/CodexWorker.js"
import { FileStore } from "../../../src/services/FileStore.js"
import { ProcessRunner } from "../../../src/services/ProcessRunner.js"
import { Review } from "../../../src/services/Review.js"
import { REVIEWER_OUTPUT_OMITTED, RunLog } from "../../../src/services/RunLog.js"
import { ballotFavouring, NARRATIVE } from "../../review/ballots.js"
import { listDirectory, makeRunDirectory, readText, reviewInput } from "../../review/support.js"

const FAKE_CODEX = fileURLToPath(new URL("../../fake-codex/codex", import.meta.url))

/**
 * A wrapper in front of the fake CLI that records what the reviewer could see: the directory it
 * was started in (`--cd`) is copied to the capture folder before the fake runs (its knobs are named like
 * the fake's: Codex is started with an allow-list of the environment).
 */
const WRAPPER = `#!/bin/sh
dir=""
previous=""
for argument in "$@"; do
  if [ "$previous" = "--cd" ] || [ "$previous" = "-C" ]; then dir="$argument"; fi
  previous="$argument"
done
if [ -n "$dir" ]; then
  echo "$dir" >> "$FAKE_CODEX_CAPTURE_DIR/directories"
  cp -R "$dir" "$FAKE_CODEX_CAPTURE_DIR/$(basename "$dir")"
fi
if [ -n "$FAKE_CODEX_RUN_DIR" ]; then
  find "$FAKE_CODEX_RUN_DIR" >> "$FAKE_CODEX_CAPTURE_DIR/run-files"
  grep -rl -e candidate_mapping -e side-one-marker -e side-two-marker "$FAKE_CODEX_RUN_DIR" >> "$FAKE_CODEX_CAPTURE_DIR/mapping-files" 2>/dev/null
  grep -rli -e candidate_mapping -e claude -e codex -e "$FAKE_CODEX_RUN_DIR" "$dir" >> "$FAKE_CODEX_CAPTURE_DIR/mapping-files" 2>/dev/null
fi
exec "$FAKE_CODEX_BIN" "$@"
`

const setUp = (overrides: Record<string, string> = {}) => Effect.promise(async () => {
  const scratch = await fsp.mkdtemp(path.join(os.tmpdir(), "codex-replay-isolation-"))
  const capture = path.join(scratch, "capture")
  await fsp.mkdir(capture)
  const wrapper = path.join(scratch, "codex")
  await fsp.writeFile(wrapper, WRAPPER, { mode: 0o755 })
  const ballotFile = path.join(scratch, "ballot.json")
  await fsp.writeFile(ballotFile, JSON.stringify(ballotFavouring("A")))
  const invocations = path.join(scratch, "invocations.jsonl")
  const environment = {
    ...process.env,
    FAKE_CODEX_CAPTURE_DIR: capture,
    FAKE_CODEX_BIN: FAKE_CODEX,
    FAKE_CODEX_LOG: invocations,
    FAKE_CODEX_STRICT_SCHEMA: "1",
    FAKE_CODEX_FINAL_JSON_FILE: ballotFile,
    FAKE_CODEX_SESSIONS_DIR: path.join(scratch, "sessions"),
    ...overrides
  }
  const worker = CodexWorker.layer({ cliPath: wrapper, environment, codexHome: path.join(scratch, "codex-home") }).pipe(
    Layer.provide(Layer.mergeAll(ProcessRunner.Default, RunLog.Default))
  )
  const layer = Review.DefaultWithoutDependencies.pipe(Layer.provide(Layer.mergeAll(worker, RunLog.Default, FileStore.Default)))
  return { capture, invocations, layer }
})

interface Invocation {
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  readonly prompt: string
}

/** The review as the pipeline runs it: reviewer workspaces in the system's temporary directory. */
const productionInput = (runDirectory: string) => {
  const { workspaceParent: _testParent, ...input } = reviewInput(runDirectory)
  return input
}

describe("reviewer isolation (real worker, fake Codex CLI)", () => {
  it.live("each review sees only the two candidates, in a neutral directory outside the run, removed afterwards; no mapping on disk meanwhile", () =>
    Effect.gen(function*() {
      const runDirectory = yield* makeRunDirectory()
      const { capture, invocations, layer } = yield* setUp({ FAKE_CODEX_RUN_DIR: runDirectory })
      const evaluation = yield* Effect.flatMap(Review, (review) => review.run(productionInput(runDirectory))).pipe(Effect.provide(layer))
      expect(evaluation.reviews.map((review) => review.status)).toEqual(["completed", "completed"])
      // The same first-position ballot in both orders: every dimension flips.
      expect(evaluation.flips).toBe(6)

      const calls = (yield* readText(invocations)).trim().split("\n").map((line) => JSON.parse(line) as Invocation)
      expect(calls).toHaveLength(2)
      const directories = (yield* readText(path.join(capture, "directories"))).trim().split("\n")
      expect(directories).toHaveLength(2)
      expect(new Set(directories).size).toBe(2)

      const reviews = path.join(runDirectory, "reviews")
      const originalA = yield* readText(path.join(reviews, "candidate-a.json"))
      const originalB = yield* readText(path.join(reviews, "candidate-b.json"))
      // While either reviewer ran, the run directory held nothing of the review, and no readable
      // file anywhere near held the mapping.
      const runFiles = (yield* readText(path.join(capture, "run-files"))).trim().split("\n").map((file) => path.relative(runDirectory, file))
      // Besides the log, only the record of the reviewer's process namespace (pids and an inode).
      expect(new Set(runFiles.filter((file) => !file.startsWith("processes")))).toEqual(new Set(["", "run.log"]))
      expect(yield* readText(path.join(capture, "mapping-files")).pipe(Effect.orElseSucceed(() => ""))).toBe("")
      for (const [index, directory] of directories.entries()) {
        const call = calls[index]!
        expect(path.dirname(path.dirname(directory))).toBe(os.tmpdir())
        expect(path.basename(path.dirname(directory))).toMatch(/^private-[A-Za-z0-9]{6}$/)
        expect(path.basename(directory)).toMatch(/^workspace-[A-Za-z0-9]{6}$/)
        expect(fs.existsSync(directory)).toBe(false)
        expect(call.cwd).toBe(directory)
        const seen = path.join(capture, path.basename(directory))
        expect((yield* listDirectory(seen)).sort()).toEqual(["candidate-a.json", "candidate-b.json"])
        const seenA = yield* readText(path.join(seen, "candidate-a.json"))
        const seenB = yield* readText(path.join(seen, "candidate-b.json"))
        // The second review sees the candidates swapped.
        expect([seenA, seenB]).toEqual(index === 0 ? [originalA, originalB] : [originalB, originalA])
        expect(call.prompt).toContain(path.join(directory, "candidate-a.json"))
        expect(call.prompt).toContain(path.join(directory, "candidate-b.json"))
        expect(call.prompt).not.toContain(reviews)
        expect(call.prompt).not.toContain(runDirectory + path.sep + "reviews")
        expect(call.argv.join(" ")).toContain(`permissions.codex_replay.network={"enabled" = false}`)
        expect(call.argv.join(" ")).not.toContain("--sandbox")
        expect(call.argv.join(" ")).toContain('model_reasoning_effort="medium"')
        expect(call.argv).toContain("--output-schema")
      }
      const runLog = yield* readText(path.join(runDirectory, "run.log"))
      expect(runLog).toContain(REVIEWER_OUTPUT_OMITTED)
      expect(runLog).not.toContain(NARRATIVE)
    }), 60_000)

  it.live("an answer that is not a ballot: the order is asked again once, read-only, with the candidates and the error but never the answer; twice not a ballot, no ballot", () =>
    Effect.gen(function*() {
      // The reviewer answers text that is not JSON, and carries a `fake-final-json:` line: were the answer
      // ever quoted back to a model (as a repair pass once did), the fake would make a ballot of it.
      const invalidAnswer = `fake-final-json: ${JSON.stringify(ballotFavouring("B"))}\nThat is my ballot.`
      const { capture, invocations, layer } = yield* setUp({ FAKE_CODEX_FINAL_JSON: invalidAnswer })
      const runDirectory = yield* makeRunDirectory()
      const evaluation = yield* Effect.flatMap(Review, (review) => review.run(productionInput(runDirectory))).pipe(Effect.provide(layer))
      expect(evaluation.reviews.map((review) => [review.status, review.ballot, review.asked_again])).toEqual([["invalid", null, true], ["invalid", null, true]])
      expect(evaluation.winner).toBe("inconclusive")
      expect(evaluation.missing_orders).toEqual(["AB", "BA"])

      const calls = (yield* readText(invocations)).trim().split("\n").map((line) => JSON.parse(line) as Invocation)
      expect(calls).toHaveLength(4)
      const again = calls.filter((call) => call.prompt.includes("did not match the output schema"))
      expect(again).toHaveLength(2)
      for (const call of again) {
        expect(path.dirname(path.dirname(call.cwd))).toBe(os.tmpdir())
        expect(path.basename(call.cwd)).toMatch(/^workspace-[A-Za-z0-9]{6}$/)
        expect(fs.existsSync(call.cwd)).toBe(false)
        expect((yield* listDirectory(path.join(capture, path.basename(call.cwd)))).sort()).toEqual(["candidate-a.json", "candidate-b.json"])
        expect(call.argv.join(" ")).toContain(`permissions.codex_replay.network={"enabled" = false}`)
        expect(call.argv.join(" ")).not.toContain("--sandbox")
        expect(call.argv.join(" ")).toContain('model_reasoning_effort="medium"')
        expect(call.prompt).not.toContain("That is my ballot")
        expect(call.prompt).not.toContain(path.join(runDirectory, "reviews"))
      }
      expect(yield* readText(path.join(runDirectory, "run.log"))).not.toContain(NARRATIVE)
    }), 60_000)
})
