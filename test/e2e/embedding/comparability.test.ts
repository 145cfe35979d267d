/**
 * An embedding program (docs/controller.md) gets the same rules as the daemon: a bad CODEX_REPLAY_PRICING fails its
 * settings layer with one sentence, and an empty beginning while Claude changed existing files is blocked
 * until accepted. In process, over the real layers, the fixtures and the fake Codex CLI.
 */
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { replayLayer, settingsLayer } from "../../../src/embedding.js"
import { prepareRun } from "../../../src/programs/runs/prepare.js"
import { startRun } from "../../../src/programs/runs/start.js"
import { CLAUDE_HOME, FAKE_CODEX, listTree, scratch } from "../../rpc/support.js"

const DEMO_THREAD = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
const roots: Array<string> = []
const newRoot = () => {
  const root = scratch("codex-replay-embedding-compare-")
  roots.push(root)
  return root
}

afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

const demo = {
  thread_id: DEMO_THREAD,
  request: "Update CLAUDE.md to the current state of the project.",
  beginning_kind: "non_git",
  ending_kind: "non_git",
  confirm_file_selection: true,
  models: ["gpt-5.6-terra"]
}

describe("embedding programs", () => {
  it("fail with one sentence naming CODEX_REPLAY_PRICING when its file is malformed, and write nothing", async () => {
    const root = newRoot()
    const pricing = path.join(root, "pricing.json")
    fs.writeFileSync(pricing, JSON.stringify({ models: { "gpt-5.5": { input_per_million: 5, output_per_million: 30 } } }))
    const layer = replayLayer(settingsLayer({ runRoot: path.join(root, "runs"), claudeConfigDir: CLAUDE_HOME, codexCliPath: FAKE_CODEX }, {
      CODEX_REPLAY_PRICING: pricing
    }, root))
    const exit = await Effect.runPromiseExit(Effect.provide(prepareRun(demo), layer))
    expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error.message : exit).toBe(
      'CODEX_REPLAY_PRICING must give models["gpt-5.5"].cached_input_per_million as a number of dollars per million tokens, zero or more.'
    )
    expect(listTree(root)).toEqual(["pricing.json"])
  })

  it("are blocked from an unaccepted empty beginning while Claude changed existing files; nothing starts", async () => {
    const root = newRoot()
    const runRoot = path.join(root, "runs")
    const layer = replayLayer(settingsLayer({ runRoot, claudeConfigDir: CLAUDE_HOME, codexCliPath: FAKE_CODEX }, {}, root))
    const outcome = await Effect.runPromise(Effect.provide(
      Effect.gen(function*() {
        const blocked = yield* prepareRun(demo)
        const refused = yield* Effect.flip(startRun({ ...demo, approved: true, prepare_token: "y".repeat(43) }))
        const accepted = yield* prepareRun({ ...demo, confirm_empty_beginning: true })
        return { blocked, refused: refused.message, accepted: accepted.ready }
      }),
      layer
    ))
    expect(outcome.blocked.ready).toBe(false)
    expect(outcome.blocked.blockers[0]).toMatch(/^Claude modified 1 file\(s\) that existed before the session \(CLAUDE\.md\)/)
    expect(outcome.refused).toBe("The prepare token is unknown to this controller or has expired. Prepare and approve the run again.")
    expect(outcome.accepted).toBe(true)
    expect(fs.readdirSync(runRoot)).toEqual([])
  })
})
