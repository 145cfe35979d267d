/**
 * A synthetic Claude Code session of three chunks (three human prompts), written by the tests that
 * replay one of its chunks. Its lines have the shapes of the real transcripts in test/fixtures (user
 * prompts, assistant responses with usage, Write/Edit tool calls and their results), its times and
 * token counts are chosen so that each chunk's share is known exactly.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { gitAt as git } from "./support.js"

export const CHUNK_MODEL = "claude-opus-4-5"
/** The three prompts, ten minutes apart. */
export const CHUNK_TIMES = ["2026-03-01T10:00:00.000Z", "2026-03-01T10:10:00.000Z", "2026-03-01T10:20:00.000Z"] as const
export const CHUNK_PROMPTS = [
  "Create lib.py with a function one() and write notes.txt.",
  "Add a function two() to lib.py and create two.txt.",
  "Create three.txt."
] as const
/** Each chunk's tokens (input, output): no cache, so the cost is input × $5 + output × $25 per million. */
export const CHUNK_USAGE = [[1000, 100], [200, 20], [3000, 300]] as const
/** Claude's last line of each chunk comes this long after its prompt. */
export const CHUNK_ACTIVE_MS = [90_000, 150_000, 60_000] as const

export const LIB_AFTER_ONE = "def one():\n    return 1\n"
export const LIB_AFTER_TWO = `${LIB_AFTER_ONE}\n\ndef two():\n    return 2\n`
export const NOTES = "chunk one notes\n"
export const TWO = "two\n"
export const THREE = "three\n"

export const at = (base: string, ms: number) => new Date(Date.parse(base) + ms).toISOString()

interface Line {
  readonly [key: string]: unknown
}

/** The session's lines for a project directory `cwd`; message ids are derived from `threadId`. */
export const chunkThreadLines = (threadId: string, cwd: string): Array<Line> => {
  const lines: Array<Line> = []
  let parent: string | null = null
  let counter = 0
  const uuid = (label: string) => {
    counter++
    const hex = counter.toString(16).padStart(12, "0")
    return `${label.padEnd(8, "0").slice(0, 8)}-0000-4000-8000-${hex}`
  }
  const base = { isSidechain: false, userType: "external", cwd, sessionId: threadId, version: "2.0.76", gitBranch: "main" }
  const push = (line: Line) => {
    lines.push({ parentUuid: parent, ...base, ...line })
    parent = line.uuid as string
  }
  const assistant = (time: string, id: string, content: Array<Line>, usage: readonly [number, number]) =>
    push({
      type: "assistant",
      uuid: uuid("a"),
      timestamp: time,
      message: {
        model: CHUNK_MODEL,
        id,
        type: "message",
        role: "assistant",
        content,
        stop_reason: null,
        usage: { input_tokens: usage[0], cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: usage[1] }
      }
    })
  const toolResult = (time: string, toolId: string, text: string, result: Line) =>
    push({
      type: "user",
      uuid: uuid("r"),
      timestamp: time,
      message: { role: "user", content: [{ tool_use_id: toolId, type: "tool_result", content: text }] },
      toolUseResult: result
    })
  const write = (chunk: number, step: number, file: string, content: string, original: string | null) => {
    const time = at(CHUNK_TIMES[chunk]!, step * 10_000)
    const toolId = `toolu_${chunk}${step}`
    const usage: readonly [number, number] = [0, 0]
    assistant(time, `msg_${threadId.slice(0, 8)}_${chunk}_${step}`, [
      { type: "tool_use", id: toolId, name: "Write", input: { file_path: path.posix.join(cwd, file), content } }
    ], usage)
    toolResult(at(time, 1_000), toolId, `File written: ${file}`, {
      type: original === null ? "create" : "update",
      filePath: path.posix.join(cwd, file),
      content,
      structuredPatch: [],
      originalFile: original
    })
  }
  const files: Array<Array<[string, string, string | null]>> = [
    [["lib.py", LIB_AFTER_ONE, null], ["notes.txt", NOTES, null]],
    [["lib.py", LIB_AFTER_TWO, LIB_AFTER_ONE], ["two.txt", TWO, null]],
    [["three.txt", THREE, null]]
  ]
  CHUNK_PROMPTS.forEach((prompt, chunk) => {
    push({ type: "user", uuid: uuid(`p${chunk + 1}`), timestamp: CHUNK_TIMES[chunk], message: { role: "user", content: prompt } })
    files[chunk]!.forEach(([file, content, original], index) => write(chunk, index + 1, file, content, original))
    assistant(at(CHUNK_TIMES[chunk]!, CHUNK_ACTIVE_MS[chunk]!), `msg_${threadId.slice(0, 8)}_${chunk}_done`, [
      { type: "text", text: `Chunk ${chunk + 1} is done.` }
    ], CHUNK_USAGE[chunk]!)
  })
  return lines
}

/** Writes the session under `<claudeHome>/projects/<project>/<threadId>.jsonl`; answers the prompts' message ids. */
export const writeChunkThread = (claudeHome: string, threadId: string, cwd: string) => {
  const directory = path.join(claudeHome, "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"))
  fs.mkdirSync(directory, { recursive: true })
  const lines = chunkThreadLines(threadId, cwd)
  fs.writeFileSync(path.join(directory, `${threadId}.jsonl`), lines.map((line) => JSON.stringify(line)).join("\n") + "\n")
  return lines.filter((line) => line.type === "user" && typeof (line.message as { content: unknown }).content === "string")
    .map((line) => line.uuid as string)
}

/** Writes the files and commits them at `date`; answers the commit. */
export const commitAt = (directory: string, date: string, files: Record<string, string>, message: string) => {
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(directory, name), content)
  git(directory, date, "add", ".")
  git(directory, date, "commit", "--quiet", "-m", message)
  return git(directory, date, "rev-parse", "HEAD")
}

/** A repository `<root>/<name>` whose first commit is an hour before the thread. */
export const makeChunkProject = (root: string, name: string) => {
  const directory = path.join(root, name)
  fs.mkdirSync(directory, { recursive: true })
  git(directory, CHUNK_TIMES[0], "init", "--quiet", "--initial-branch", "main")
  const initial = commitAt(directory, at(CHUNK_TIMES[0], -3_600_000), { "README.md": "the project\n" }, "initial")
  return { directory, initial }
}
