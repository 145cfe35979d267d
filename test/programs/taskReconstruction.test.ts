import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { withAttemptUsage } from "../../src/domain/errors.js"
import { workerError } from "../../src/domain/worker.js"
import { claimCachedReconstruction, reconstructionDirectory, reconstructTask } from "../../src/programs/threads/taskReconstruction.js"
import { threadRecordById } from "../../src/programs/threads/threads.js"
import { CodexWorker } from "../../src/services/CodexWorker.js"
import { FileStore } from "../../src/services/FileStore.js"
import { copyOfClaudeHome, fakeCodex, historyLayer, settingsFor } from "../history/support.js"

/** The real seven-prompt session b3edadab and the real one-prompt session 55604662. */
const THREAD = "b3edadab-bca0-4054-9b41-f7ffa6941260"
const SINGLE = "55604662-cf2a-4331-851a-ec234028f8ca"
const models = fakeCodex({ models: [{ slug: "gpt-5.6-terra", display_name: "Terra", visibility: "list", priority: 1 }] })

/** Everything reconstruction reads, over a private copy of the fixtures, with a fake worker answering `answers` in turn. */
const setup = (answers: Array<string | "fail" | "invalid">) => {
  const home = copyOfClaudeHome()
  const settings = settingsFor(home, { codexCliPath: models })
  const prompts: Array<string> = []
  const worker = CodexWorker.fake((request) =>
    Effect.suspend(() => {
      prompts.push(request.prompt)
      const answer = answers.shift() ?? "fail"
      return answer === "fail"
        ? Effect.fail(workerError({ code: "stream_error", message: "failed", retryable: true, stage: "turn", exitCode: 1, systemCode: null, elapsedMs: 0 }))
        : answer === "invalid"
        ? Effect.fail(withAttemptUsage(
          workerError({ code: "invalid_output", message: "not the schema", retryable: false, stage: "turn", exitCode: 0, systemCode: null, elapsedMs: 0 }),
          { input: 70, cached_input: 0, cache_write: 0, output: 9 }
        ))
        : Effect.succeed({ final_response: JSON.stringify({ request: answer }), usage: { input: 10, cached_input: 0, cache_write: 0, output: 5, reasoning_output: 1 } })
    }))
  const layer = Layer.mergeAll(historyLayer(settings), worker, FileStore.Default)
  const session = path.join(home, "projects", "-Users-user-project", `${THREAD}.jsonl`)
  return { settings, prompts, layer, session }
}

it.effect("a damaged cache file is as good as none: the model is asked again and the file rewritten", () => {
  const { settings, prompts, layer } = setup(["First task.", "Second task."])
  return Effect.gen(function*() {
    expect((yield* reconstructTask(THREAD, undefined)).request).toBe("First task.")
    const folder = reconstructionDirectory(settings.cacheRoot)
    const [file] = fs.readdirSync(folder)
    fs.writeFileSync(path.join(folder, file!), "{ not json")
    const again = yield* reconstructTask(THREAD, undefined)
    expect(again).toMatchObject({ request: "Second task.", cached: false, synthesis: { model: "gpt-5.6-terra", usage: { input: 10, output: 5 } } })
    expect(prompts).toHaveLength(2)
    expect((yield* reconstructTask(THREAD, undefined)).cached).toBe(true)
    expect(prompts).toHaveLength(2)
  }).pipe(Effect.provide(layer))
})

it.effect("a session that grew since is reconstructed afresh; a fallback after a failed call is not cached", () => {
  const { prompts, layer, session } = setup(["fail", "Task from the first file.", "Task from the grown file."])
  return Effect.gen(function*() {
    const fallback = yield* reconstructTask(THREAD, undefined)
    expect(fallback.request_generation.method).toBe("concatenated_fallback")
    expect(fallback.synthesis).toBeNull()
    expect((yield* reconstructTask(THREAD, undefined)).request).toBe("Task from the first file.")
    const lines = fs.readFileSync(session, "utf8").trimEnd().split("\n")
    fs.appendFileSync(session, `${lines[lines.length - 1]}\n`)
    fs.utimesSync(session, new Date(), new Date(Date.now() + 5_000))
    expect((yield* reconstructTask(THREAD, undefined)).request).toBe("Task from the grown file.")
    expect(prompts).toHaveLength(3)
  }).pipe(Effect.provide(layer))
})

it.effect("a thread of one prompt is its own task: no model is asked and nothing is cached", () => {
  const { settings, prompts, layer } = setup([])
  return Effect.gen(function*() {
    const result = yield* reconstructTask(SINGLE, undefined)
    expect(result).toMatchObject({
      request: "mix phx.server doesnt seem to start",
      request_generation: { method: "single_user_prompt" },
      synthesis: null,
      overlap: { share: 1, flagged: false }
    })
    expect(prompts).toEqual([])
    expect(fs.existsSync(reconstructionDirectory(settings.cacheRoot))).toBe(false)
  }).pipe(Effect.provide(layer))
})

it.effect("an answer that was not valid is counted and cached with its fallback: asking again costs nothing", () => {
  const { prompts, layer } = setup(["invalid", "Never asked."])
  return Effect.gen(function*() {
    const fallback = yield* reconstructTask(THREAD, undefined)
    expect(fallback).toMatchObject({
      request_generation: { method: "concatenated_fallback" },
      synthesis: { model: "gpt-5.6-terra", usage: { input: 70, cached_input: 0, cache_write: 0, output: 9, reasoning_output: 0 } },
      cached: false
    })
    const again = yield* reconstructTask(THREAD, undefined)
    expect(again).toMatchObject({ request: fallback.request, cached: true, synthesis: fallback.synthesis })
    expect(prompts).toHaveLength(1)
  }).pipe(Effect.provide(layer))
})

it.effect("a whole thread's fallback is the user's own messages, never Claude's account of its work", () => {
  const { layer, session } = setup(["fail"])
  // The user answers "1" after Claude's numbered account of its work (no question): the recorded request
  // resolves it as "(= option: **WWII** required breaking Nazi Enigma codes)".
  const lines = fs.readFileSync(session, "utf8").trimEnd().split("\n")
  const last = JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>
  const reply = { ...last, parentUuid: last.uuid, type: "user", uuid: "00000000-0000-4000-8000-000000000001", timestamp: "2025-12-20T09:40:00.000Z", message: { role: "user", content: "1" } }
  fs.appendFileSync(session, `${JSON.stringify(reply)}\n`)
  return Effect.gen(function*() {
    const fallback = yield* reconstructTask(THREAD, undefined)
    expect(fallback.request_generation.method).toBe("concatenated_fallback")
    expect(fallback.request).not.toContain("Enigma")
    expect(fallback.request).not.toContain("option:")
    expect(fallback.request.startsWith("Hello I want to have some test conversation with you create some file for me")).toBe(true)
    expect(fallback.request.endsWith("Ok ultrathink and try again\n\n1")).toBe(true)
  }).pipe(Effect.provide(layer))
})

it.effect("a cached reconstruction's call is charged to one run only: the first to claim it", () => {
  const { prompts, layer } = setup(["The task."])
  return Effect.gen(function*() {
    expect((yield* reconstructTask(THREAD, undefined)).request).toBe("The task.")
    const record = yield* threadRecordById(THREAD)
    const claims = yield* Effect.all([
      claimCachedReconstruction(record, undefined, "run-1"),
      claimCachedReconstruction(record, undefined, "run-2")
    ], { concurrency: 2 })
    expect(claims.filter(Boolean)).toHaveLength(1)
    // A later replay of the same cached prompt is not charged again.
    expect(yield* claimCachedReconstruction(record, undefined, "run-3")).toBe(false)
    expect((yield* reconstructTask(THREAD, undefined)).cached).toBe(true)
    expect(prompts).toHaveLength(1)
  }).pipe(Effect.provide(layer))
})
