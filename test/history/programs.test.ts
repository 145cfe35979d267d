import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { invalidArgument } from "../../src/domain/errors.js"
import { parseModelCatalogue } from "../../src/domain/history/models.js"
import { listThreads, listThreadsText } from "../../src/programs/threads/threadList.js"
import { inspectThread } from "../../src/programs/threads/threads.js"
import { Baseline } from "../../src/services/Baseline.js"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { CodexModels } from "../../src/services/CodexModels.js"
import { Git } from "../../src/services/Git.js"
import { PACKAGED_SAMPLES_ROOT, Samples } from "../../src/services/Samples.js"
import { Settings } from "../../src/services/Settings.js"
import { CLAUDE_HOME, fakeCodex, historyLayer, scratch, settingsFor } from "./support.js"
import { fixturePath } from "../support/fixtures.js"

const catalogue = JSON.parse(fs.readFileSync(fixturePath("codex-golden", "debug-models-0.171.0.json"), "utf8"))

describe("models from `codex debug models`", () => {
  it("leaves hidden models out and orders the rest by priority", () => {
    const options = parseModelCatalogue(JSON.stringify(catalogue))!
    expect(options[0]).toEqual({ id: "gpt-6.2-sol", label: "GPT-6.2-Sol", default: true })
    expect(options.map((option) => option.id)).not.toContain("gpt-daybreak-blue-latest")
    expect(options.map((option) => option.id)).not.toContain("codex-auto-review")
    expect(options.map((option) => option.id).slice(0, 4)).toEqual(["gpt-6.2-sol", "gpt-6.2-astra", "gpt-6.1-terra", "gpt-6.1-sol"])
  })

  it.effect("asks the CLI named by CODEX_CLI_PATH", () =>
    Effect.gen(function*() {
      const list = yield* (yield* CodexModels).list()
      expect(list.source).toBe("codex")
      expect(list.options.map((option) => option.id)).toEqual(["gpt-5.6-terra", "gpt-x"])
    }).pipe(Effect.provide(historyLayer(settingsFor(CLAUDE_HOME, {
      codexCliPath: fakeCodex({
        models: [
          { slug: "gpt-x", display_name: "X", visibility: "list", priority: 2 },
          { slug: "gpt-hidden", display_name: "H", visibility: "hide", priority: 0 },
          { slug: "gpt-5.6-terra", display_name: "Terra", visibility: "list", priority: 1 }
        ]
      })
    })))))

  it.effect("falls back to the built-in list with a diagnostic when the CLI is missing or fails", () =>
    Effect.gen(function*() {
      const missing = yield* (yield* CodexModels).list()
      expect(missing.source).toBe("built_in")
      // The same lookup as the worker's: a CODEX_CLI_PATH that names nothing is said before anything is started.
      expect(missing.diagnostic).toMatch(/^The Codex CLI \S+no-such-codex does not exist or is not executable\. Showing the built-in model list\.$/)
      expect(missing.options.length).toBeGreaterThan(3)
    }).pipe(Effect.provide(historyLayer(settingsFor(CLAUDE_HOME)))))

  it.effect("falls back when the CLI exits non-zero", () =>
    Effect.gen(function*() {
      const failed = yield* (yield* CodexModels).list()
      expect(failed.diagnostic).toBe(`\`${failing}\` debug models\` exited with code 3. Showing the built-in model list.`.replace(`\`${failing}\``, `\`${failing}`))
    }).pipe(Effect.provide(historyLayer(settingsFor(CLAUDE_HOME, { codexCliPath: failing })))))
})

const failing = fakeCodex({ models: [] }, 3)

const codexWithSynthesis = fakeCodex({
  models: [
    { slug: "gpt-6.2-sol", display_name: "Sol", visibility: "list", priority: 1 },
    { slug: "gpt-5.6-terra", display_name: "Terra", visibility: "list", priority: 9 }
  ]
})

describe("list_threads and inspect_thread", () => {
  const settings = settingsFor(CLAUDE_HOME, { codexCliPath: codexWithSynthesis })
  layer(historyLayer(settings))((it) => {
    it.effect("pages the imported threads and counts both sources", () =>
      Effect.gen(function*() {
        const first = yield* listThreads({})
        expect(first).toMatchObject({ source: "imported", imported_total: 5, offset: 0, total: 5, has_more: false })
        // Counted without loading the samples (their manifests only): the same number as listing them gives.
        expect(first.sample_total).toBe(2)
        expect(first.sample_total).toBe((yield* listThreads({ source: "sample" })).total)
        const page = yield* listThreads({ offset: 1, limit: 2 })
        expect(page.threads.map((thread) => thread.imported_thread_id.slice(0, 8))).toEqual(["c45af7b1", "b3edadab"])
        expect(page).toMatchObject({ total: 5, has_more: true })
        expect(listThreadsText(page)).toBe("Loaded 2 imported Claude thread(s).")
      }))

    it.effect("searches every imported thread by title, project dir, model and id, then paginates", () =>
      Effect.gen(function*() {
        expect((yield* listThreads({ query: "SPOTTER" })).threads.map((thread) => thread.title)).toEqual([
          "mix phx.server doesnt seem to start"
        ])
        const opus = yield* listThreads({ query: "claude-opus", limit: 1 })
        expect(opus).toMatchObject({ total: 2, has_more: true })
        const second = yield* listThreads({ query: "claude-opus", limit: 1, offset: 1 })
        expect(second.threads[0]!.imported_thread_id).toBe("b3edadab-bca0-4054-9b41-f7ffa6941260")
        expect((yield* listThreads({ query: "5c0375b4" })).total).toBe(1)
        expect((yield* listThreads({ query: "/path/to/demo" })).total).toBe(2)
        expect((yield* listThreads({ query: "nothing matches this" })).threads).toEqual([])
      }))

    it.effect("returns each thread's Claude tokens and cost, and sorts by cost on request", () =>
      Effect.gen(function*() {
        const history = yield* ClaudeHistory
        const byDate = yield* listThreads({})
        expect(byDate.sort).toBe("date")
        for (const thread of byDate.threads) {
          const record = yield* history.thread(thread.imported_thread_id)
          expect(thread.tokens).toEqual(record.tokens)
          expect(thread.cost_usd).toBe(record.cost_usd)
          expect(thread.cost_usd).toBeGreaterThan(0)
        }
        const byCost = yield* listThreads({ sort: "cost" })
        expect(byCost.sort).toBe("cost")
        const costs = byCost.threads.map((thread) => thread.cost_usd!)
        expect(costs).toEqual([...costs].sort((left, right) => right - left))
        expect(new Set(byCost.threads.map((thread) => thread.imported_thread_id)))
          .toEqual(new Set(byDate.threads.map((thread) => thread.imported_thread_id)))
        // Searching and paging apply to the sorted list.
        const page = yield* listThreads({ sort: "cost", limit: 2, offset: 1 })
        expect(page.threads.map((thread) => thread.cost_usd)).toEqual(costs.slice(1, 3))
      }))

    it.effect("lists the packaged samples with source sample", () =>
      Effect.gen(function*() {
        const samples = yield* listThreads({ source: "sample" })
        expect(samples.source).toBe("sample")
        expect(samples.threads.every((thread) => thread.source === "sample")).toBe(true)
        expect(samples.total).toBe(samples.sample_total)
      }))

    it.effect("rejects bad arguments with one clear message and writes nothing", () =>
      Effect.gen(function*() {
        for (const [payload, message] of [
          [{ offset: -1 }, "offset must be from 0 through 100000."],
          [{ offset: "3" }, "offset must be an integer."],
          [{ limit: 0 }, "limit must be from 1 through 100."],
          [{ limit: 101 }, "limit must be from 1 through 100."],
          [{ limit: 2.5 }, "limit must be an integer."],
          [{ query: 5 }, "query must be a string."],
          [{ source: "other" }, "source must be imported or sample."],
          [{ sort: "price" }, "sort must be date or cost."],
          [[1], "The tool arguments must be an object."]
        ] as const) {
          const error = yield* Effect.flip(listThreads(payload))
          expect(error.message).toBe(message)
        }
        for (const [payload, message] of [
          [{}, "thread_id is required."],
          [{ thread_id: "../../../etc/passwd" }, "thread_id is not a valid Claude thread ID."],
          [{ thread_id: "missing-thread" }, "No imported Claude thread has the ID missing-thread."],
          [{ thread_id: "sample-nope" }, "No packaged sample has the ID sample-nope."],
          [{ thread_id: "b3edadab-bca0-4054-9b41-f7ffa6941260", beginning_kind: "svn" }, 'beginning_kind must be Git or Non-Git ("git" or "non_git").'],
          [{ thread_id: "b3edadab-bca0-4054-9b41-f7ffa6941260", repo: "  " }, "repo must not be empty."]
        ] as const) {
          const error = yield* Effect.flip(inspectThread(payload))
          expect(error.message).toBe(message)
        }
        // Nothing but the thread index, the cache of what the listings read.
        expect(fs.readdirSync(settings.cacheRoot).filter((entry) => entry !== "index")).toEqual([])
      }))

    it.effect("inspects an imported thread: pending synthesis, non-git baseline, capabilities, models", () =>
      Effect.gen(function*() {
        const result = yield* inspectThread({ thread_id: "b3edadab-bca0-4054-9b41-f7ffa6941260" })
        expect(result.diagnostics).toEqual([])
        expect(result.thread).toEqual(result.replay)
        expect(result.replay.request_generation).toEqual({ method: "pending" })
        expect(result.replay).not.toHaveProperty("prompt_reconstruction_turns")
        expect(result.baseline).toMatchObject({ source_kind: "non_git", repository: "/Users/user/project" })
        expect(result.workspace).toMatchObject({ kind: "non_git", requires_empty_attestation: true, requires_confirmation: true })
        expect(result.workspace.files.map((file) => file.path)).toEqual(["test-file.txt"])
        expect(result.models.map((model) => model.id)).toEqual(["gpt-6.2-sol", "gpt-5.6-terra"])
        expect(result.capabilities).toEqual({ items: [expect.objectContaining({ name: "subagents", status: "partial" })] })
      }))

    it.effect("keeps a single prompt as the request", () =>
      Effect.gen(function*() {
        const result = yield* inspectThread({ thread_id: "55604662-cf2a-4331-851a-ec234028f8ca" })
        expect(result.replay.request).toBe("mix phx.server doesnt seem to start")
        expect(result.replay.request_generation).toEqual({ method: "single_user_prompt" })
      }))
  })

  const failingSteps = Layer.mergeAll(
    Layer.succeed(Baseline, Baseline.make({ propose: () => Effect.die(invalidArgument("The repository is ambiguous.")) })),
    Layer.succeed(CodexModels, CodexModels.make({ list: () => Effect.die(new Error("models exploded")) }))
  )
  layer(Layer.merge(failingSteps, historyLayer(settingsFor(CLAUDE_HOME))))((it) => {
    it.effect("turns failed steps into diagnostics in the fixed order while the others answer", () =>
      Effect.gen(function*() {
        const result = yield* inspectThread({ thread_id: "c45af7b1-cb7c-4e51-93db-8cbb250a877a" }).pipe(
          Effect.provide(failingSteps)
        )
        expect(result.diagnostics.map((item) => item.step)).toEqual(["baseline", "models"])
        expect(result.diagnostics[0]!.message).toBe("The step failed unexpectedly: The repository is ambiguous.")
        expect(result.baseline).toEqual({})
        // Five prompts; the /compact is a built-in command, not a prompt.
        expect(result.replay.human_turns).toBe(5)
        expect(result.replay.request_generation).toEqual({ method: "concatenated_fallback" })
        expect(result.capabilities).toEqual({ items: [] })
      }))
  })
})

describe("packaged samples without their transcript", () => {
  /** The package's samples, copied, with the hello-cli sample's transcript gone. */
  const damagedSamples = () => {
    const root = scratch("samples-")
    fs.cpSync(PACKAGED_SAMPLES_ROOT, root, { recursive: true })
    fs.rmSync(path.join(root, "hello-cli", "thread.jsonl"))
    return root
  }
  const settings = settingsFor(CLAUDE_HOME)
  const layerOf = (samplesRoot: string) =>
    Layer.mergeAll(ClaudeHistory.Default, Samples.layerAt(samplesRoot)).pipe(
      Layer.provideMerge(Git.Default),
      Layer.provideMerge(Settings.layer(settings))
    )

  it.effect("are left out of both the count and the listing", () =>
    Effect.gen(function*() {
      const samples = yield* Samples
      expect(yield* samples.count()).toBe(1)
      expect((yield* samples.list()).map((thread) => thread.imported_thread_id)).toEqual(["sample-word-count"])
      expect((yield* listThreads({})).sample_total).toBe(1)
      expect((yield* listThreads({ source: "sample" })).total).toBe(1)
    }).pipe(Effect.provide(layerOf(damagedSamples()))))

  it.effect("are all there when the package is whole", () =>
    Effect.gen(function*() {
      const samples = yield* Samples
      expect(yield* samples.count()).toBe(2)
      expect((yield* samples.list()).length).toBe(2)
    }).pipe(Effect.provide(layerOf(PACKAGED_SAMPLES_ROOT))))
})
