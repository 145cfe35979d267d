import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { Evaluation, Position } from "../../src/domain/review/evaluation.js"
import { type JudgeCall, parseSecondJudge } from "../../src/domain/review/secondJudge.js"
import type { WorkerRequest } from "../../src/services/CodexWorker.js"
import { FileStore } from "../../src/services/FileStore.js"
import { ProcessEnvironment } from "../../src/services/platform/environment.js"
import { Review } from "../../src/services/Review.js"
import { ClaudeJudge } from "../../src/services/review/ClaudeJudge.js"
import { CLAUDE_PATH_VARIABLE, judgeEnvironment } from "../../src/services/review/claudeCode.js"
import { RunLog } from "../../src/services/RunLog.js"
import { ballotFavouring } from "./ballots.js"
import { CLAUDE_MARK, CODEX_MARK, listDirectory, makeRunDirectory, readJsonFile, reviewerTemporaryDirectory, reviewInput, reviewLayer } from "./support.js"

const FAKE_CLAUDE = path.resolve(import.meta.dirname, "../fake-claude/claude")

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The Codex reviewer of these tests always favours the Codex candidate. */
const favourCodex = (request: WorkerRequest<unknown, unknown>) =>
  Effect.promise(async () => {
    const a = await fs.readFile(path.join(request.workingDirectory, "candidate-a.json"), "utf8")
    return JSON.stringify(ballotFavouring((a.includes(CODEX_MARK) ? "A" : "B") as Position))
  })

const layer = Layer.mergeAll(reviewLayer(favourCodex), ClaudeJudge.DefaultWithoutDependencies.pipe(Layer.provide(Layer.mergeAll(RunLog.Default, FileStore.Default))))

/** The controller's environment as the judge reads it (the test process's own is left alone), naming `claude`. */
const withClaudeAt = (executable: string, environment: Record<string, string> = {}) =>
  Effect.provideService(ProcessEnvironment, { ...process.env, [CLAUDE_PATH_VARIABLE]: executable, ...environment })

/** The Codex review, then Claude's, of a run whose task carries the fake claude's instructions. */
const judged = (fakeLines: ReadonlyArray<string>, environment: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const runDirectory = yield* makeRunDirectory()
    const input = reviewInput(runDirectory, { request: ["Add a line to a.txt.", ...fakeLines].join("\n") })
    const first = yield* Effect.flatMap(Review, (review) => review.run(input))
    const told: Array<JudgeCall> = []
    const evaluation = yield* Effect.flatMap(ClaudeJudge, (judge) =>
      judge.judgeRun({
        runDirectory,
        spec: { judge: "claude", model: "claude-test" },
        evaluation: first,
        workspaceParent: reviewerTemporaryDirectory(runDirectory),
        onCall: (call) => Effect.sync(() => void told.push(call))
      })
    ).pipe(withClaudeAt(FAKE_CLAUDE, environment))
    return { runDirectory, evaluation, told }
  })

const secondOf = (evaluation: Evaluation) => {
  const second = evaluation.second_judge
  if (second === undefined) throw new Error("no second judge recorded")
  return second
}

describe("ClaudeJudge (fake claude through the Agent SDK)", () => {
  it.layer(layer, { timeout: 60_000 })((it) => {
    it.effect("judges both orders, records both ballots and each call's cost, and calls a disagreement on the winner split", () =>
      Effect.gen(function*() {
        const { runDirectory, evaluation, told } = yield* judged([`fake-claude-prefer: ${CLAUDE_MARK}`])
        const second = secondOf(evaluation)
        // The run's ledger is told of each call as it is made, not only at the end.
        expect(told).toEqual(second.calls)
        expect(evaluation.winner).toBe("codex")
        expect(second.winner).toBe("claude")
        expect(second.agreement).toBe("split")
        expect(evaluation.judges_split).toBe(true)
        expect(second.status).toBe("completed")
        expect(second.evaluation?.reviews.map((review) => [review.order, review.status, review.evaluator])).toEqual([
          ["AB", "completed", "claude"],
          ["BA", "completed", "claude"]
        ])
        // The B/A order shows the candidates swapped.
        expect(second.evaluation?.reviews[0]?.positions).toEqual({ A: "codex", B: "claude" })
        expect(second.evaluation?.reviews[1]?.positions).toEqual({ A: "claude", B: "codex" })
        expect(second.calls.map((call) => [call.purpose, call.label, call.model, call.cost_usd])).toEqual([
          ["second_judge", "second_judge:claude:ab", "claude-test", 0.0125],
          ["second_judge", "second_judge:claude:ba", "claude-test", 0.0125]
        ])
        expect(second.calls[0]?.tokens).toEqual({ ordinary_input: 2000, cache_read: 100, cache_write: 300, output: 500 })
        expect(second.cost_usd).toBeCloseTo(0.025)
        const reviews = path.join(runDirectory, "reviews")
        expect(yield* listDirectory(reviews)).toEqual(expect.arrayContaining(["second-judge-ballot-ab.json", "second-judge-ballot-ba.json"]))
        const stored = (yield* readJsonFile(path.join(reviews, "evaluation.json"))) as Evaluation
        expect(stored.judges_split).toBe(true)
        expect(stored.second_judge?.winner).toBe("claude")
        // Every workspace is gone.
        expect(yield* listDirectory(reviewerTemporaryDirectory(runDirectory))).toEqual([])
      }))

    it.effect("two judges with the same winner agree and are not split", () =>
      Effect.gen(function*() {
        // The fake claude favours the candidate whose final response is Codex's (the marker itself would steer the Codex reviewer).
        const { evaluation } = yield* judged(["fake-claude-prefer: added the line."])
        expect(secondOf(evaluation).winner).toBe("codex")
        expect(secondOf(evaluation).agreement).toBe("agreed")
        expect(evaluation.judges_split).toBe(false)
      }))

    it.effect("an answer that is not a ballot is asked again once with the validation error, and the second answer counts", () =>
      Effect.gen(function*() {
        const { evaluation } = yield* judged(["fake-claude-scenario: invalid_once", `fake-claude-prefer: ${CLAUDE_MARK}`])
        const second = secondOf(evaluation)
        expect(second.status).toBe("completed")
        expect(second.evaluation?.reviews.map((review) => review.asked_again)).toEqual([true, true])
        expect(second.calls.map((call) => call.label)).toEqual([
          "second_judge:claude:ab",
          "second_judge:claude:ab:asked-again",
          "second_judge:claude:ba",
          "second_judge:claude:ba:asked-again"
        ])
        expect(second.winner).toBe("claude")
      }))

    it.effect("twice not a ballot: the order has none, nothing is rebuilt, and the judges' agreement is unknown", () =>
      Effect.gen(function*() {
        const { runDirectory, evaluation } = yield* judged(["fake-claude-scenario: invalid_always"])
        const second = secondOf(evaluation)
        expect(second.status).toBe("incomplete")
        expect(second.winner).toBe("inconclusive")
        expect(second.agreement).toBe("incomplete")
        expect(evaluation.judges_split).toBe(false)
        expect(second.evaluation?.missing_orders).toEqual(["AB", "BA"])
        expect(second.evaluation?.reviews.every((review) => review.ballot === null && review.status === "invalid")).toBe(true)
        expect(second.calls).toHaveLength(4)
        const names = yield* listDirectory(path.join(runDirectory, "reviews"))
        expect(names.filter((name) => name.startsWith("second-judge-ballot"))).toEqual([])
      }))

    it.effect("Claude Code's own \"no structured output\" is not a ballot either: asked again once, then none", () =>
      Effect.gen(function*() {
        const { evaluation } = yield* judged(["fake-claude-scenario: no_structured_output"])
        const second = secondOf(evaluation)
        expect(second.evaluation?.reviews.map((review) => [review.status, review.asked_again])).toEqual([["invalid", true], ["invalid", true]])
        expect(second.evaluation?.reviews[0]?.error).toBe("The judge gave no ballot: The answer did not match the output schema.")
        expect(second.calls).toHaveLength(4)
      }))

    it.effect("a session that fails leaves its order without a ballot, its cost still counted, and the run goes on", () =>
      Effect.gen(function*() {
        const { evaluation } = yield* judged(["fake-claude-scenario: error"])
        const second = secondOf(evaluation)
        expect(second.status).toBe("incomplete")
        expect(second.evaluation?.reviews.map((review) => [review.status, review.error])).toEqual([
          ["failed", "Claude Code failed (error_during_execution): API Error: 500 overloaded"],
          ["failed", "Claude Code failed (error_during_execution): API Error: 500 overloaded"]
        ])
        // Failed sessions are not asked again (that is for answers that are not ballots), but they cost.
        expect(second.calls.map((call) => [call.label, call.cost_usd])).toEqual([
          ["second_judge:claude:ab", 0.0125],
          ["second_judge:claude:ba", 0.0125]
        ])
        expect(second.agreement).toBe("incomplete")
      }))

    it.effect("a Claude Code that crashes is recorded as failed with its message, and nothing is counted for it", () =>
      Effect.gen(function*() {
        const { evaluation } = yield* judged(["fake-claude-scenario: crash"])
        const second = secondOf(evaluation)
        expect(second.evaluation?.reviews.map((review) => review.status)).toEqual(["failed", "failed"])
        expect(second.evaluation?.reviews[0]?.error).toContain("fake claude crashed")
        expect(second.calls).toEqual([])
        expect(second.winner).toBe("inconclusive")
      }))

    it.effect("interrupting the judge (a cancel, the run's timeout) ends Claude Code; the run's tag is on it for the sweep", () =>
      Effect.gen(function*() {
        const runDirectory = yield* makeRunDirectory()
        const envFile = path.join(runDirectory, "..", "hang-env.jsonl")
        const input = reviewInput(runDirectory, { request: ["Add a line to a.txt.", "fake-claude-scenario: hang", `fake-claude-env-file: ${envFile}`].join("\n") })
        const first = yield* Effect.flatMap(Review, (review) => review.run(input))
        const fiber = yield* Effect.fork(Effect.flatMap(ClaudeJudge, (judge) =>
          judge.judgeRun({ runDirectory, spec: { judge: "claude", model: null }, evaluation: first, runTag: "run-tag-test", workspaceParent: reviewerTemporaryDirectory(runDirectory) })).pipe(
          withClaudeAt(FAKE_CLAUDE)
        ))
        // The fake records itself as soon as it has the prompt (a real process: this waits in real time, boundedly).
        const seen = yield* Effect.promise(async () => {
          for (let waited = 0; waited < 20_000; waited += 50) {
            const text = await fs.readFile(envFile, "utf8").catch(() => "")
            if (text.includes("\n")) return text
            await new Promise((resolve) => setTimeout(resolve, 50))
          }
          throw new Error("the fake claude never started")
        })
        const { pid, env } = JSON.parse(seen.trim().split("\n")[0]!) as { pid: number; env: Record<string, string> }
        expect(env.CODEX_REPLAY_RUN_TAG).toBe("run-tag-test")
        expect(isAlive(pid)).toBe(true)
        yield* Fiber.interrupt(fiber)
        const gone = yield* Effect.promise(async () => {
          for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
          return !isAlive(pid)
        })
        expect(gone).toBe(true)
        expect(yield* listDirectory(reviewerTemporaryDirectory(runDirectory))).toEqual([])
      }))

    it.effect("Claude Code gets only what it needs: no controller or OpenAI secret, no tools, no user settings, a workspace of the two candidates", () =>
      Effect.gen(function*() {
        const root = yield* Effect.promise(() => fs.mkdtemp(path.join(reviewerTemporaryDirectoryRoot(), "env-")))
        const envFile = path.join(root, "env.jsonl")
        yield* judged([`fake-claude-env-file: ${envFile}`], {
          OPENAI_API_KEY: "sk-controller-secret",
          CODEX_API_KEY: "codex-controller-secret",
          CODEX_REPLAY_CONTROLLER_SESSION_ID: "controller-session-secret",
          AWS_SECRET_ACCESS_KEY: "aws-secret",
          ANTHROPIC_API_KEY: "anthropic-key-for-claude"
        })
        const lines = (yield* Effect.promise(() => fs.readFile(envFile, "utf8"))).trim().split("\n").map((line) =>
          JSON.parse(line) as { env: Record<string, string>; argv: Array<string>; cwd: string; files: Array<string> })
        expect(lines).toHaveLength(2)
        for (const seen of lines) {
          const text = JSON.stringify(seen.env)
          for (const secret of ["sk-controller-secret", "codex-controller-secret", "controller-session-secret", "aws-secret"]) {
            expect(text).not.toContain(secret)
          }
          expect(Object.keys(seen.env).filter((name) => name.startsWith("CODEX_REPLAY_") || name.startsWith("OPENAI"))).toEqual([])
          expect(seen.env.ANTHROPIC_API_KEY).toBe("anthropic-key-for-claude")
          expect(seen.env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).toBe("1")
          expect(seen.argv).toEqual(expect.arrayContaining(["--tools=", "--setting-sources=", "--strict-mcp-config", "--permission-mode=dontAsk", "--no-session-persistence"]))
          expect(seen.files).toEqual(["candidate-a.json", "candidate-b.json"])
        }
      }))

    it.effect("without Claude Code the judge does not run and says why", () =>
      Effect.gen(function*() {
        const runDirectory = yield* makeRunDirectory()
        const first = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory)))
        const evaluation = yield* Effect.flatMap(ClaudeJudge, (judge) => judge.judgeRun({ runDirectory, spec: { judge: "claude", model: null }, evaluation: first })).pipe(
          withClaudeAt(path.join(runDirectory, "no-claude-here"))
        )
        expect(secondOf(evaluation).status).toBe("unavailable")
        expect(secondOf(evaluation).reason).toContain("does not name an executable file")
        expect(evaluation.judges_split).toBe(false)
      }))

    it.effect("recorded candidates that cannot be read leave the judge unavailable with the reason; the run does not fail", () =>
      Effect.gen(function*() {
        const runDirectory = yield* makeRunDirectory()
        const first = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory)))
        yield* Effect.promise(() => fs.rm(path.join(runDirectory, "reviews", "candidate-b.json")))
        const evaluation = yield* Effect.flatMap(ClaudeJudge, (judge) => judge.judgeRun({ runDirectory, spec: { judge: "claude", model: null }, evaluation: first })).pipe(
          withClaudeAt(FAKE_CLAUDE)
        )
        expect(secondOf(evaluation).status).toBe("unavailable")
        expect(secondOf(evaluation).reason).toContain("the recorded candidates could not be read")
        expect(secondOf(evaluation).calls).toEqual([])
      }))
  })
})

const reviewerTemporaryDirectoryRoot = () => process.env.TMPDIR ?? "/tmp"

describe("second judge specs", () => {
  it("accepts claude and claude:MODEL", () => {
    expect(parseSecondJudge("claude")).toEqual(Either.right({ judge: "claude", model: null }))
    expect(parseSecondJudge("claude:sonnet")).toEqual(Either.right({ judge: "claude", model: "sonnet" }))
    expect(parseSecondJudge("claude:claude-sonnet-4-5[1m]")).toEqual(Either.right({ judge: "claude", model: "claude-sonnet-4-5[1m]" }))
  })

  it("refuses another judge or a malformed model with one sentence", () => {
    expect(parseSecondJudge("gemini")).toEqual(Either.left("Unknown second judge \"gemini\": the only second judge is claude (or claude:MODEL, such as claude:sonnet)."))
    for (const bad of ["claude:", "claude:-rm", "claude:a b", "claude:../x"]) {
      const parsed = parseSecondJudge(bad)
      expect(Either.isLeft(parsed) && parsed.left.startsWith("The second judge's model")).toBe(true)
    }
  })

  it("passes no variable outside its list to Claude Code", () => {
    const env = judgeEnvironment({ PATH: "/bin", OPENAI_API_KEY: "x", CODEX_REPLAY_PRICING: "{}", ANTHROPIC_BASE_URL: "http://127.0.0.1:1" })
    expect(env.PATH).toBe("/bin")
    expect(env.ANTHROPIC_BASE_URL).toBe("http://127.0.0.1:1")
    expect("OPENAI_API_KEY" in env || "CODEX_REPLAY_PRICING" in env).toBe(false)
  })
})
