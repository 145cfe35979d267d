import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import type { Position } from "../../src/domain/review/evaluation.js"
import type { WorkerRequest } from "../../src/services/CodexWorker.js"
import { FileStore } from "../../src/services/FileStore.js"
import { Review } from "../../src/services/Review.js"
import { ClaudeJudge } from "../../src/services/review/ClaudeJudge.js"
import { RunLog } from "../../src/services/RunLog.js"
import { ballotFavouring } from "../review/ballots.js"
import { CLAUDE_MARK, CODEX_MARK, makeRunDirectory, reviewerTemporaryDirectory, reviewInput, reviewLayer } from "../review/support.js"
import { MOCK_USAGE, startMockMessages } from "./mockMessages.js"

/** The Claude Code binary the pinned Agent SDK ships (its platform package), or undefined where there is none. */
const realClaudeBinary = (): string | undefined => {
  try {
    const sdk = createRequire(import.meta.url).resolve("@anthropic-ai/claude-agent-sdk")
    const platform = createRequire(sdk).resolve(`@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/package.json`)
    const binary = path.join(path.dirname(platform), "claude")
    return fs.existsSync(binary) ? binary : undefined
  } catch {
    return undefined
  }
}

const binary = realClaudeBinary()

/** The Codex reviewer of this test favours the Codex candidate; the mock Claude favours Claude's: a split. */
const favourCodex = (request: WorkerRequest<unknown, unknown>) =>
  Effect.promise(async () => {
    const a = await fs.promises.readFile(path.join(request.workingDirectory, "candidate-a.json"), "utf8")
    return JSON.stringify(ballotFavouring((a.includes(CODEX_MARK) ? "A" : "B") as Position))
  })

const layer = Layer.mergeAll(reviewLayer(favourCodex), ClaudeJudge.DefaultWithoutDependencies.pipe(Layer.provide(Layer.mergeAll(RunLog.Default, FileStore.Default))))

const USER_SECRET = "USER-CLAUDE-MD-SECRET-4711"

if (binary === undefined) {
  describe("real Claude Code binary", () => {
    it("is not installed: the second judge's real-binary test has nothing to run", () => {
      console.warn("[claude-real] SKIPPED: the Agent SDK's Claude Code binary is not installed for this platform.")
      expect(realClaudeBinary()).toBeUndefined()
    })
  })
} else {
  describe(`the second judge with the real Claude Code binary (${binary}) against a local mock Messages API`, () => {
    it.layer(layer, { timeout: 120_000 })((it) => {
      it.effect("judges both orders through the Agent SDK offline, with the ballot schema as its only tool, none of the user's memory or hooks, and its cost counted", () =>
        Effect.gen(function*() {
          const mock = yield* Effect.acquireRelease(Effect.promise(() => startMockMessages(CLAUDE_MARK)), (server) => Effect.promise(() => server.close()))
          // A user's home with a memory file and a hook that would leave a mark: neither may be used.
          const home = fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-claude-home-"))
          const marker = path.join(home, "hook-ran")
          fs.mkdirSync(path.join(home, ".claude"))
          fs.writeFileSync(path.join(home, ".claude", "CLAUDE.md"), `Always mention ${USER_SECRET}.\n`)
          fs.writeFileSync(path.join(home, ".claude", "settings.json"), JSON.stringify({
            hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] }
          }))
          const saved = { ...process.env }
          const runDirectory = yield* makeRunDirectory()
          const first = yield* Effect.flatMap(Review, (review) => review.run(reviewInput(runDirectory)))
          const evaluation = yield* Effect.flatMap(ClaudeJudge, (judge) =>
            Effect.suspend(() => {
              delete process.env.CLAUDE_CONFIG_DIR
              Object.assign(process.env, {
                CODEX_REPLAY_CLAUDE_PATH: binary,
                ANTHROPIC_BASE_URL: mock.url,
                ANTHROPIC_API_KEY: "dummy",
                HOME: home
              })
              return judge.judgeRun({
                runDirectory,
                spec: { judge: "claude", model: "claude-sonnet-4-5" },
                evaluation: first,
                workspaceParent: reviewerTemporaryDirectory(runDirectory)
              })
            })).pipe(Effect.ensuring(Effect.sync(() => {
              for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
              Object.assign(process.env, saved)
            })))
          const second = evaluation.second_judge!
          expect(second.evaluation?.reviews.map((review) => [review.order, review.status, review.error])).toEqual([
            ["AB", "completed", null],
            ["BA", "completed", null]
          ])
          expect(second.winner).toBe("claude")
          expect(evaluation.winner).toBe("codex")
          expect(evaluation.judges_split).toBe(true)
          // Claude Code's own usage and price for the model, per call.
          expect(second.calls).toHaveLength(2)
          for (const call of second.calls) {
            expect(call.model).toBe("claude-sonnet-4-5")
            // One request per order: the mock's usage, priced by Claude Code at Sonnet 4.5's list price ($3 / $15 per million).
            expect(call.tokens).toEqual({ ordinary_input: MOCK_USAGE.input_tokens, cache_read: 0, cache_write: 0, output: MOCK_USAGE.output_tokens })
            expect(call.cost_usd).toBeCloseTo(0.0105, 6)
          }
          // Nothing but the Messages API was asked; the only tool offered is the ballot's output.
          expect(mock.requests).toHaveLength(2)
          expect(new Set(mock.requests.map((request) => `${request.method} ${request.path}`))).toEqual(new Set(["POST /v1/messages"]))
          for (const request of mock.requests) {
            expect((request.body.tools ?? []).map((tool: { name: string }) => tool.name)).toEqual(["StructuredOutput"])
            expect(JSON.stringify(request.body)).not.toContain(USER_SECRET)
          }
          expect(JSON.stringify(mock.requests[0]!.body)).toContain("=== Candidate A === (candidate-a.json)")
          expect(fs.existsSync(marker)).toBe(false)
          fs.rmSync(home, { recursive: true, force: true })
        }).pipe(Effect.scoped))
    })
  })
}
