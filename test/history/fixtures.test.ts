import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { CLAUDE_HOME, historyLayer, PROJECTS, settingsFor } from "./support.js"

interface Expected {
  readonly folder: string
  readonly projectDir: string
  readonly branch: string | null
  readonly models: ReadonlyArray<string>
  readonly humanTurns: number
  readonly changedPaths: ReadonlyArray<string>
  readonly tokens: { input: number; cache_read: number; cache_write_5m: number; cache_write_1h: number; output: number }
  readonly finalStart: string
  readonly wallMs: number
  readonly title: string
}

/**
 * Expected values read by hand from the fixture files (line numbers are 1-based):
 *
 * b3edadab (2.0.74): cwd /Users/user/project, gitBranch "main". Main chain uses claude-opus-4-5 (15 message ids);
 *   the Task agent in sibling agent-a434715.jsonl uses claude-sonnet-4-5 (3 ids); agent-a4e24f0 is a "Warmup" probe
 *   (a billed call: counted in tokens and cost, its own line in tokens_by_source, not among the models). Live prompts: lines 2, 11, 21, 43, 50 ("Hi"), 55 (interrupted), 58 → 7; lines 28 and 35 are rewound
 *   siblings of line 43 under 8fe00b4a and do not count. One file, test-file.txt (Write, Edits, agent Edit).
 *   Input: 9 responses × 10 + 6 × 8 = 138 main + 3 + 6 + 6 = 15 agent = 153. Output: the reference measured 1,443
 *   for the main chain (max per id); the agent adds 93 + 202 + 2 = 297 → 1,740; the warm-up probe 1,413 input
 *   and 1 output → 1,566 input and 1,741 output.
 *   Wall: 08:57:00.189 (line 2) → 09:23:01.555 (line 60) = 1,561,366 ms. Title: the summary on line 53, whose
 *   leafUuid feae9236 is a line of this file (the summaries in a751b8dd/be89c3cd point here but are not threads).
 * 55604662 (2.1.38): cwd /home/marco/projects/spotter, "master", claude-opus-4-6 (one id, 1-hour cache writes
 *   13,835). Turns: the prompt (line 4); /model logged as system/local_command (line 14) is a built-in command,
 *   not a prompt → 1. Both tools were
 *   rejected, then "[Request interrupted by user for tool use]": the final answer is the progress sentence.
 *   Wall: 21:11:56.846 (line 4; progress lines are not timed) → 21:16:12.381 (line 15) = 255,535 ms.
 * 1af7fc5e (1.0.98): cwd /path/to/Demo, gitBranch "" (not a repo → null), one /init command. Its only Write
 *   failed (permission not granted), so no file changed although the answer claims so. Wall 00:47:19.293 →
 *   00:47:52.264 = 32,971 ms.
 * 5c0375b4 (1.0.108): /orchestrator with a Japanese argument, branch main; inline sidechain lines are sub-agent
 *   work. CLAUDE.md: Edit failed (line 46), MultiEdit succeeded (line 50) → modified. Wall 09:52:03.071 →
 *   09:54:26.499 = 143,428 ms.
 * c45af7b1 (2.0.76): cwd /workspace, gitBranch "", five prompts (/compact is a built-in command, not a prompt) → 5. Three Writes create
 *   hello_world.py, number_generator.py, data.txt. Output 1,480 (reference §2.8, max per id) and 132 input, plus
 *   the warm-up probe agent-af1ff21 (728 input, 152 output) → 860 and 1,632. The last
 *   answer is line 55 ("Great! …"); the compaction summary and /compact come after it but are not requests.
 *   Wall 19:18:31.028 (line 2) → 19:21:02.108 (line 63) = 151,080 ms.
 */
const EXPECTED: Record<string, Expected> = {
  "b3edadab-bca0-4054-9b41-f7ffa6941260": {
    folder: "-Users-user-project",
    projectDir: "/Users/user/project",
    branch: "main",
    models: ["claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929"],
    humanTurns: 7,
    changedPaths: ["test-file.txt"],
    tokens: { input: 1_566, cache_read: 315_668, cache_write_5m: 45_563, cache_write_1h: 0, output: 1_741 },
    finalStart: "Alright Okarin, here's a causal chain from WWII to today",
    wallMs: 1_561_366,
    title: "Test file creation and agent thread handling"
  },
  "55604662-cf2a-4331-851a-ec234028f8ca": {
    folder: "-home-marco-projects-spotter",
    projectDir: "/home/marco/projects/spotter",
    branch: "master",
    models: ["claude-opus-4-6"],
    humanTurns: 1,
    changedPaths: [],
    tokens: { input: 3, cache_read: 11_515, cache_write_5m: 0, cache_write_1h: 13_835, output: 13 },
    finalStart: "Let me check the project structure",
    wallMs: 255_535,
    title: "mix phx.server doesnt seem to start"
  },
  "1af7fc5e-8455-4414-9ccd-011d40f70b2a": {
    folder: "-path-to-Demo",
    projectDir: "/path/to/Demo",
    branch: null,
    models: ["claude-sonnet-4-20250514"],
    humanTurns: 1,
    changedPaths: [],
    tokens: { input: 93, cache_read: 103_219, cache_write_5m: 12_698, cache_write_1h: 0, output: 953 },
    finalStart: "I've created a basic CLAUDE.md file",
    wallMs: 32_971,
    title: "/init"
  },
  "5c0375b4-57a5-4f26-b12d-d022ee4e51b7": {
    folder: "-path-to-Demo",
    projectDir: "/path/to/Demo",
    branch: "main",
    models: ["claude-sonnet-4-20250514"],
    humanTurns: 1,
    changedPaths: ["CLAUDE.md"],
    tokens: { input: 129, cache_read: 324_259, cache_write_5m: 47_747, cache_write_1h: 0, output: 3_629 },
    finalStart: "CLAUDE.mdファイルを最新の状態にアップデートしました",
    wallMs: 143_428,
    title: "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"
  },
  "c45af7b1-cb7c-4e51-93db-8cbb250a877a": {
    folder: "-workspace",
    projectDir: "/workspace",
    branch: null,
    models: ["claude-haiku-4-5-20251001"],
    humanTurns: 5,
    changedPaths: ["hello_world.py", "number_generator.py", "data.txt"],
    tokens: { input: 860, cache_read: 223_265, cache_write_5m: 8_467, cache_write_1h: 0, output: 1_632 },
    finalStart: "Great! Here's what I did across multiple tool calls",
    wallMs: 151_080,
    title: "can you run a command ls -la"
  }
}

/**
 * An independent token count: every line of the session file and of the sibling agent files carrying its
 * sessionId, grouped by message.id, each field's maximum, synthetic lines left out (warm-up agents are billed calls).
 */
const independentTokenCount = (folder: string, sessionId: string) => {
  const directory = path.join(PROJECTS, folder)
  const files = fs.readdirSync(directory).filter((name) => name.endsWith(".jsonl")).map((name) => path.join(directory, name))
  const groups = new Map<string, Record<string, number>>()
  for (const file of files) {
    const lines = fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line))
    const belongs = path.basename(file) === `${sessionId}.jsonl` ||
      (path.basename(file).startsWith("agent-") && lines[0]?.sessionId === sessionId)
    if (!belongs) continue
    for (const line of lines) {
      const usage = line.message?.usage
      if (line.type !== "assistant" || usage === undefined || line.message.model === "<synthetic>") continue
      const fields = {
        input: usage.input_tokens ?? 0,
        cache_read: usage.cache_read_input_tokens ?? 0,
        cache_write_5m: usage.cache_creation?.ephemeral_5m_input_tokens ?? usage.cache_creation_input_tokens ?? 0,
        cache_write_1h: usage.cache_creation?.ephemeral_1h_input_tokens ?? 0,
        output: usage.output_tokens ?? 0
      }
      const previous = groups.get(line.message.id) ?? {}
      groups.set(line.message.id, Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, Math.max(value, previous[key] ?? 0)])))
    }
  }
  const total = { input: 0, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output: 0 }
  for (const group of groups.values()) {
    for (const key of Object.keys(total) as Array<keyof typeof total>) total[key] += group[key] ?? 0
  }
  return total
}

describe("Claude history on the real fixtures", () => {
  it.layer(historyLayer(settingsFor(CLAUDE_HOME)))((it) => {
    it.effect("lists exactly the five threads, newest first, and nothing that is not a thread", () =>
      Effect.gen(function*() {
        const { threads, diagnostics } = yield* (yield* ClaudeHistory).list()
        // Not threads: the empty 0f13eeba, the /clear-only 0d3b22c1, the summary-only a751b8dd and be89c3cd,
        // and every agent-*.jsonl (two warm-ups and one Task agent).
        expect(threads.map((thread) => thread.imported_thread_id)).toEqual([
          "55604662-cf2a-4331-851a-ec234028f8ca",
          "c45af7b1-cb7c-4e51-93db-8cbb250a877a",
          "b3edadab-bca0-4054-9b41-f7ffa6941260",
          "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
          "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
        ])
        expect(diagnostics).toEqual([])
      }))

    for (const [threadId, expected] of Object.entries(EXPECTED)) {
      it.effect(`summarises and inspects ${threadId.slice(0, 8)} as read by hand`, () =>
        Effect.gen(function*() {
          const history = yield* ClaudeHistory
          const summary = (yield* history.list()).threads.find((thread) => thread.imported_thread_id === threadId)!
          expect(summary).toMatchObject({
            project_dir: expected.projectDir,
            git_branch: expected.branch,
            claude_model: expected.models[0],
            claude_models: expected.models,
            human_turns: expected.humanTurns,
            changed_files: expected.changedPaths.length,
            title: expected.title,
            source: "imported",
            source_path: path.join(PROJECTS, expected.folder, `${threadId}.jsonl`)
          })
          const record = yield* history.thread(threadId)
          expect(record.imported_thread_id).toBe(threadId)
          expect(record.historical_changed_files.filter((file) => !file.abandoned).map((file) => file.path))
            .toEqual(expected.changedPaths)
          expect(record.tokens).toEqual(expected.tokens)
          expect(record.tokens).toEqual(independentTokenCount(expected.folder, threadId))
          expect(record.final_response.startsWith(expected.finalStart)).toBe(true)
          expect(record.elapsed.wall_ms).toBe(expected.wallMs)
          expect(record.cost_usd).toBeGreaterThan(0)
          expect(record.unpriced_models).toEqual([])
        }))
    }

    it.effect("reconstructs the rewinds, the interrupt and the sub-agent edit of b3edadab", () =>
      Effect.gen(function*() {
        const record = yield* (yield* ClaudeHistory).thread("b3edadab-bca0-4054-9b41-f7ffa6941260")
        expect(record.abandoned_request_turns.map((turn) => turn.text.slice(0, 30))).toEqual([
          "Ok make another addition which",
          "Ok I came from the future wher"
        ])
        expect(record.request_turns.map((turn) => turn.kind)).toEqual([
          "prompt", "prompt", "prompt", "prompt", "prompt", "prompt", "interrupt", "prompt"
        ])
        expect(record.request).not.toContain("revert later via the checkpoint")
        expect(record.request_generation.method).toBe("concatenated_fallback")
        const [file] = record.historical_changed_files
        // Created by the main chain's Write, edited by it, then appended to by the Task agent (08:58:12); the
        // two edits on rewound branches (lines 31 and 39) are counted but do not shape the live diff.
        expect(file).toMatchObject({ path: "test-file.txt", kind: "created", by_subagent: true, abandoned: false })
        expect(file!.abandoned_operations).toBe(2)
        expect(file!.diff).toContain("+--- Added by Task Agent ---")
        expect(file!.diff).not.toContain("This section will be reverted")
        expect(record.tokens_by_source.subagents.output).toBe(297)
        expect(record.tokens_by_source.warmup).toEqual({ input: 1413, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output: 1 })
        expect(record.subagent_files.map((file) => [path.basename(file.path), file.kind])).toEqual([
          ["agent-a434715.jsonl", "subagent"],
          ["agent-a4e24f0.jsonl", "warmup"]
        ])
        expect(record.message_uuid).toBe("38842167-8451-487e-9a65-4f6623b4ca8b")
      }))

    it.effect("keeps the slash command with its expansion and prices 1.0.x sessions", () =>
      Effect.gen(function*() {
        const record = yield* (yield* ClaudeHistory).thread("5c0375b4-57a5-4f26-b12d-d022ee4e51b7")
        expect(record.request_generation.method).toBe("single_user_prompt")
        expect(record.request.startsWith("/orchestrator @CLAUDE.md を最新の状態にアップデートしてください\n\nSplit complex tasks"))
          .toBe(true)
        // Inline isSidechain lines (two Task agents) are sub-agent tokens of the same file.
        expect(record.tokens_by_source.subagents.output).toBe(107 + 70 + 308 + 179 + 86 + 102 + 92 + 70 + 92 + 520)
        const diff = record.historical_changed_files[0]!.diff!
        expect(diff).toContain("--- a/CLAUDE.md")
        expect(diff).toContain("+A fully functional TODO application built with Next.js 15.5.2")
        // Sonnet 4 at $3/$15 per million: input + 1.25 × cache writes + 0.1 × cache reads at $3, output at $15.
        const expectedCost = (129 * 3 + 47_747 * 3 * 1.25 + 324_259 * 3 * 0.1 + 3_629 * 15) / 1_000_000
        expect(record.cost_usd).toBeCloseTo(expectedCost, 5)
      }))

    it.effect("reports the interrupted end of the spotter session and its 1-hour cache writes at 2×", () =>
      Effect.gen(function*() {
        const record = yield* (yield* ClaudeHistory).thread("55604662-cf2a-4331-851a-ec234028f8ca")
        expect(record.ended_interrupted).toBe(true)
        expect(record.ended_with_error).toBe(false)
        expect(record.request).toBe("mix phx.server doesnt seem to start")
        expect(record.request_turns.map((turn) => turn.kind)).toEqual(["prompt", "interrupt", "local_command"])
        const expectedCost = (3 * 5 + 13_835 * 5 * 2 + 11_515 * 5 * 0.1 + 13 * 25) / 1_000_000
        expect(record.cost_usd).toBeCloseTo(expectedCost, 5)
      }))

    it.effect("rebuilds created files as new-file diffs relative to the project directory", () =>
      Effect.gen(function*() {
        const record = yield* (yield* ClaudeHistory).thread("c45af7b1-cb7c-4e51-93db-8cbb250a877a")
        const hello = record.historical_changed_files.find((file) => file.path === "hello_world.py")!
        expect(hello.diff).toBe(
          "diff --git a/hello_world.py b/hello_world.py\nnew file mode 100644\n--- /dev/null\n+++ b/hello_world.py\n" +
            "@@ -0,0 +1 @@\n+print(\"Hello, World!\")\n"
        )
        expect(record.request_turns.filter((turn) => turn.kind === "compaction_summary")).toHaveLength(1)
        expect(record.request).not.toContain("This session is being continued")
        // Active time falls back to per-turn spans: each prompt to the last line before the next prompt.
        expect(record.elapsed.active_source).toBe("turn_spans")
        expect(record.elapsed.active_ms).toBeLessThan(record.elapsed.wall_ms)
      }))
  })
})
