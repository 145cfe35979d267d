import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { saveLastListing } from "../../src/cli/lastListing.js"
import { ambiguityMessage, pickByPrefix, resolveThread } from "../../src/cli/threadRefs.js"
import type { ThreadSummary } from "../../src/domain/history/session.js"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { MemoryFileSystemLive } from "../../src/services/platform/memoryFileSystem.js"
import { Samples } from "../../src/services/Samples.js"
import { Settings } from "../../src/services/Settings.js"
import { settingsFor } from "../history/support.js"
import { makeTestLayer } from "../support/testLayers.js"

const LOGIN = "55604662-cf2a-4331-851a-ec234028f8ca"
const ORCHESTRATOR = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
const LS = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"

const summary = (id: string, title: string, source: "imported" | "sample" = "imported"): ThreadSummary => ({
  imported_thread_id: id,
  title,
  project_dir: null,
  git_branch: null,
  claude_model: null,
  claude_models: [],
  started_at: null,
  ended_at: null,
  human_turns: 1,
  changed_files: 0,
  tokens: { input: 0, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output: 0 },
  cost_usd: null,
  source_path: `/memory/${id}.jsonl`,
  source
})

const imported = [summary(LOGIN, "Fix the login"), summary(ORCHESTRATOR, "Update CLAUDE.md"), summary(LS, "List the files")]

const HistoryLayer = Layer.mergeAll(
  makeTestLayer(ClaudeHistory)({
    listing: () =>
      Effect.succeed({
        threads: imported.map((thread) => ({ imported_thread_id: thread.imported_thread_id, cost_usd: null, summary: Effect.succeed(thread) })),
        diagnostics: []
      })
  }),
  makeTestLayer(Samples)({ list: () => Effect.succeed([summary("sample-hello-cli", "Sample: create a greeting script", "sample")]) }),
  Settings.layer(settingsFor("/memory/claude", { runRoot: "/memory/cache/runs" })),
  MemoryFileSystemLive
)

describe("picking an id by its start", () => {
  it("takes a whole id, else the one id that starts with it (case-insensitive), else says none or lists the matches", () => {
    const ids = [LOGIN, ORCHESTRATOR, LS]
    expect(pickByPrefix(ORCHESTRATOR, ids, "thread", "see x")).toEqual({ _tag: "One", id: ORCHESTRATOR })
    expect(pickByPrefix(" C45A ", ids, "thread", "see x")).toEqual({ _tag: "One", id: LS })
    expect(pickByPrefix("5", ids, "thread", "see x")).toEqual({ _tag: "Many", ids: [LOGIN, ORCHESTRATOR] })
    expect(pickByPrefix("zz", ids, "thread", "see x")).toEqual({ _tag: "None", message: "No thread has the ID or ID prefix \"zz\"; see x." })
    expect(ambiguityMessage("5", "thread", [{ id: LOGIN, label: "Fix the login" }, { id: ORCHESTRATOR, label: "" }])).toBe(
      `"5" matches 2 threads; give more of the ID (nothing was changed):\n  ${LOGIN}  Fix the login\n  ${ORCHESTRATOR}`
    )
    const many = Array.from({ length: 12 }, (_, index) => ({ id: `run-${index}`, label: "" }))
    expect(ambiguityMessage("run", "run", many).split("\n").at(-1)).toBe("  … and 2 more")
  })
})

describe("resolving a thread from the history in this process", () => {
  it.effect("names a thread by its id, a unique prefix or a sample's prefix; an ambiguous or unknown one is one sentence", () =>
    Effect.gen(function*() {
      expect(yield* resolveThread(LOGIN)).toEqual({ threadId: LOGIN, title: "Fix the login" })
      expect(yield* resolveThread("c45")).toEqual({ threadId: LS, title: "List the files" })
      expect(yield* resolveThread("sample-h")).toEqual({ threadId: "sample-hello-cli", title: "Sample: create a greeting script" })
      const ambiguous = yield* Effect.either(resolveThread("5"))
      expect(Either.isLeft(ambiguous) && ambiguous.left._tag).toBe("InvalidArgument")
      expect(Either.isLeft(ambiguous) && ambiguous.left.message).toBe(
        `"5" matches 2 threads; give more of the ID (nothing was changed):\n  ${LOGIN}  Fix the login\n  ${ORCHESTRATOR}  Update CLAUDE.md`
      )
      const unknown = yield* Effect.either(resolveThread("d00d"))
      expect(Either.isLeft(unknown) && unknown.left._tag).toBe("NotFound")
    }).pipe(Effect.provide(HistoryLayer)))

  it.effect("takes #N of the last listing, page and all, and says when there is none or N is outside it", () =>
    Effect.gen(function*() {
      const before = yield* Effect.either(resolveThread("#1"))
      expect(Either.isLeft(before) && before.left.message).toBe(
        "#1 refers to the last `codex-replay threads` listing, and there is none yet; run `codex-replay threads` first."
      )
      // The second page of a listing: #21 and #22.
      yield* saveLastListing({ offset: 20, thread_ids: [LS, "gone-thread"] })
      expect((yield* resolveThread("#21")).threadId).toBe(LS)
      const outside = yield* Effect.either(resolveThread("#3"))
      expect(Either.isLeft(outside) && outside.left.message).toBe(
        "#3 is not in the last `codex-replay threads` listing (#21–#22); list it again with --offset."
      )
      const gone = yield* Effect.either(resolveThread("#22"))
      expect(Either.isLeft(gone) && gone.left.message).toBe(
        "#22 was thread gone-thread, which this history no longer has; run `codex-replay threads` again."
      )
    }).pipe(Effect.provide(HistoryLayer)))
})
