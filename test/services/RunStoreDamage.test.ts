import { it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect } from "vitest"
import { RunStore } from "../../src/services/RunStore.js"
import { Settings, settingsOf } from "../../src/services/Settings.js"
import { sessionId, writeRun } from "../support/daemon.js"

/**
 * A state file is decoded, not assumed: one with any field missing, null, of the wrong type or absurdly
 * large is left out of every listing with one line naming the run and the field, and answers a sentence
 * when it is asked for by id; the good run beside it is listed all the same.
 */
const session = sessionId()
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "runstore-damage-")))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const REQUIRED = [
  "schema_version",
  "controller_session_id",
  "run_id",
  "status",
  "phase",
  "phases",
  "events",
  "coordinator_pid",
  "started_at",
  "updated_at",
  "error"
] as const

/** A value of the wrong type for each field, and one absurdly large. */
const wrongType = (field: string): unknown =>
  ["schema_version", "coordinator_pid"].includes(field) ? "7" : ["phases", "events"].includes(field) ? { not: "a list" } : 42
const absurd = (field: string): unknown =>
  field === "schema_version" || field === "coordinator_pid"
    ? 1e300
    : field === "phases" || field === "events"
    ? Array.from({ length: 5000 }, () => ({ id: "x", label: "x", status: "x", at: "x", phase: "x", summary: "x" }))
    : "x".repeat(300_000)

const cases = REQUIRED.flatMap((field) => [
  [field, "missing", undefined],
  [field, "null", null],
  [field, "of the wrong type", wrongType(field)],
  [field, "absurdly large", absurd(field)]
] as const).filter(([field, how]) => !(how === "null" && (field === "coordinator_pid" || field === "error")))

let counter = 0
const storeWith = (damage: (runRoot: string) => string) => {
  const runRoot = path.join(root, `root-${++counter}`)
  fs.mkdirSync(runRoot, { mode: 0o700 })
  writeRun(runRoot, "run-good", { controller_session_id: session, status: "completed", started_at: "2026-01-02T00:00:00.000Z" })
  const damaged = damage(runRoot)
  const layer = RunStore.Default.pipe(
    Layer.provide(Layer.effect(Settings, settingsOf({ CODEX_REPLAY_RUN_ROOT: runRoot, CODEX_REPLAY_CONTROLLER_SESSION_ID: session })))
  )
  return { damaged, layer }
}

const expectLeftOut = (damaged: string, named: RegExp) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    expect((yield* runs.listAll()).map((state) => state.run_id)).toEqual(["run-good"])
    expect((yield* runs.listOwned()).map((state) => state.run_id)).toEqual(["run-good"])
    const diagnostics = yield* runs.listDamaged
    expect(diagnostics).toHaveLength(1)
    expect(diagnostics[0]).toMatch(new RegExp(`^Run ${damaged}: controller-state\\.json[: ]`))
    expect(diagnostics[0]).toMatch(named)
    expect(diagnostics[0]!.length).toBeLessThan(400)
    const asked = yield* Effect.either(runs.readAny(damaged))
    expect(Either.isLeft(asked) && asked.left._tag).toBe("UnreadableFile")
    expect(Either.isLeft(asked) ? asked.left.message : "").toMatch(new RegExp(`^The state of run ${damaged} is damaged \\(controller-state\\.json[: ]`))
    expect((yield* runs.readAny("run-good")).state.status).toBe("completed")
  })

describe("a damaged run state", () => {
  it.effect.each(cases)("with %s %s is left out of the listing and named", ([field, how, value]) =>
    Effect.gen(function*() {
      const { damaged, layer } = storeWith((runRoot) => {
        const directory = writeRun(runRoot, "run-damaged", { controller_session_id: session, status: "completed" })
        const file = path.join(directory, "controller-state.json")
        const state = JSON.parse(fs.readFileSync(file, "utf8"))
        if (how === "missing") delete state[field]
        else state[field] = value
        fs.writeFileSync(file, JSON.stringify(state))
        return "run-damaged"
      })
      // A state too large to be one is refused whole, before its fields are looked at.
      const named = how === "absurdly large" && JSON.stringify(value).length > 512 * 1024 ? /too large/ : new RegExp(field)
      yield* expectLeftOut(damaged, named).pipe(Effect.provide(layer))
    }))

  it.effect("truncated half way is left out and named", () =>
    Effect.gen(function*() {
      const { damaged, layer } = storeWith((runRoot) => {
        const directory = writeRun(runRoot, "run-truncated", { controller_session_id: session, status: "completed" })
        const file = path.join(directory, "controller-state.json")
        const text = fs.readFileSync(file, "utf8")
        fs.writeFileSync(file, text.slice(0, Math.floor(text.length / 2)))
        return "run-truncated"
      })
      yield* expectLeftOut(damaged, /does not contain valid JSON/).pipe(Effect.provide(layer))
    }))

  it.effect("that is repaired is listed again, and no longer named", () =>
    Effect.gen(function*() {
      let file = ""
      const { layer } = storeWith((runRoot) => {
        const directory = writeRun(runRoot, "run-repaired", { controller_session_id: session, status: "failed", phases: null })
        file = path.join(directory, "controller-state.json")
        return "run-repaired"
      })
      yield* Effect.gen(function*() {
        const runs = yield* RunStore
        expect(yield* runs.listDamaged).toEqual([expect.stringMatching(/^Run run-repaired: controller-state\.json: phases/)])
        const state = JSON.parse(fs.readFileSync(file, "utf8"))
        fs.writeFileSync(file, JSON.stringify({ ...state, phases: [] }))
        expect((yield* runs.listAll()).map((run) => run.run_id).sort()).toEqual(["run-good", "run-repaired"])
        expect(yield* runs.listDamaged).toEqual([])
      }).pipe(Effect.provide(layer))
    }))
})

describe("a run state that names what it cannot be", () => {
  it.effect.each([
    ["a run_id of another run", { run_id: "run-elsewhere" }, "controller-state.json: run_id names another run."],
    ["a session that is no session id", { controller_session_id: "2026-13-45" }, "controller_session_id is out of bounds"],
    ["a start that is no time", { started_at: "2026-13-45" }, "started_at is not an ISO 8601 time"],
    ["a status this version does not know", { status: "paused" }, "status has the wrong type or value"]
  ] as const)("with %s is left out and named", ([, change, named]) =>
    Effect.gen(function*() {
      const { damaged, layer } = storeWith((runRoot) => {
        const directory = writeRun(runRoot, "run-odd", { controller_session_id: session, status: "completed" })
        const file = path.join(directory, "controller-state.json")
        fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, "utf8")), ...change }))
        return "run-odd"
      })
      yield* expectLeftOut(damaged, new RegExp(named.replace(/[.()]/g, "\\$&"))).pipe(Effect.provide(layer))
    }))
})

describe("a run state with a __proto__ key", () => {
  it.effect("is read without it: the key lends no field to the state", () =>
    Effect.gen(function*() {
      const { layer } = storeWith((runRoot) => {
        const directory = writeRun(runRoot, "run-proto", { controller_session_id: session, status: "completed" })
        const file = path.join(directory, "controller-state.json")
        const text = fs.readFileSync(file, "utf8")
        fs.writeFileSync(file, `${text.trimEnd().slice(0, -1)}, "__proto__": {"range_start": {"not": "text"}, "report_html": "/etc/passwd"}}`)
        return "run-proto"
      })
      yield* Effect.gen(function*() {
        const runs = yield* RunStore
        const state = (yield* runs.readAny("run-proto")).state
        expect(Object.getPrototypeOf(state)).toBe(Object.prototype)
        expect([state.range_start, state.report_html]).toEqual([undefined, undefined])
        expect((yield* runs.listAll()).map((run) => run.run_id).sort()).toEqual(["run-good", "run-proto"])
      }).pipe(Effect.provide(layer))
    }))
})
