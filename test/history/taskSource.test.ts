import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { splitPoints } from "../../src/domain/history/chunks.js"
import { decodeText } from "../../src/domain/history/lines.js"
import { analyzeSession } from "../../src/domain/history/session.js"
import { askingPart, renderSourceMessage, sourceInRange, taskSourceMessages } from "../../src/domain/history/taskSource.js"
import { CLAUDE_EXTRA, PROJECTS } from "./support.js"

const B3 = path.join(PROJECTS, "-Users-user-project", "b3edadab-bca0-4054-9b41-f7ffa6941260.jsonl")
const WORKSPACE = path.join(PROJECTS, "-workspace", "c45af7b1-cb7c-4e51-93db-8cbb250a877a.jsonl")
const SPOTTER = path.join(PROJECTS, "-home-marco-projects-spotter", "55604662-cf2a-4331-851a-ec234028f8ca.jsonl")
const INIT = path.join(PROJECTS, "-path-to-Demo", "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")

const analysisOf = (text: string, file = "/session.jsonl") =>
  analyzeSession({ threadId: "t", mainPath: file, main: decodeText(text), agents: [] })
const sourceOf = (file: string) => taskSourceMessages(analysisOf(fs.readFileSync(file, "utf8"), file).conversation)
const everything = (file: string) => sourceOf(file).map(renderSourceMessage).join("\n")

/**
 * A copy of the real c45af7b1 session with a later exchange appended in the shapes Claude Code 2.x writes:
 * an assistant text that reports its work and asks a numbered question, the user's "2", then an
 * AskUserQuestion call, its tool result with `toolUseResult.answers`, and Claude's code-bearing reply.
 */
const withQuestions = () => {
  const text = fs.readFileSync(WORKSPACE, "utf8")
  const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
  let parent = [...lines].reverse().find((line) => typeof line.uuid === "string" && line.isSidechain === false)!.uuid as string
  const common = { isSidechain: false, userType: "external", cwd: "/workspace", sessionId: "c45af7b1-cb7c-4e51-93db-8cbb250a877a", version: "2.0.76", gitBranch: "" }
  let minute = 30
  const line = (type: string, message: unknown, extra: Record<string, unknown> = {}) => {
    const uuid = `00000000-0000-4000-8000-0000000000${minute}`
    const entry = { parentUuid: parent, ...common, type, message, uuid, timestamp: `2026-01-02T19:${minute}:00.000Z`, ...extra }
    parent = uuid
    minute++
    return JSON.stringify(entry)
  }
  const assistant = (id: string, content: unknown) =>
    ({ model: "claude-haiku-4-5-20251001", id, type: "message", role: "assistant", content, usage: { input_tokens: 1, output_tokens: 1 } })
  const appended = [
    line("user", { role: "user", content: "make the greeting configurable" }),
    line("assistant", assistant("msg_q1", [{ type: "text", text: "I refactored hello_world.py into a greet() function and ran the script: it printed Hello, World!\n\n```python\ndef greet(name):\n    print(f\"Hello, {name}!\")\n```\n\nWhere should the name come from?\n\n1. A command-line argument\n2. An environment variable GREETING_NAME" }])),
    line("user", { role: "user", content: "2" }),
    line("assistant", assistant("msg_q2", [{ type: "tool_use", id: "toolu_ask1", name: "AskUserQuestion", input: { questions: [{ question: "Which default name should be used?", header: "Default", multiSelect: false, options: [{ label: "World", description: "Keep the current greeting" }, { label: "Friend", description: "A warmer default" }] }] } }])),
    line("user", { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_ask1", content: "User has answered your questions: \"Which default name should be used?\"=\"Friend\". You can now continue with the user's answers in mind." }] }, { toolUseResult: { questions: [], answers: { "Which default name should be used?": "Friend" } } }),
    line("assistant", assistant("msg_q3", [{ type: "tool_use", id: "toolu_edit1", name: "Edit", input: { file_path: "/workspace/hello_world.py", old_string: "World", new_string: "os.environ.get('GREETING_NAME', 'Friend')" } }])),
    line("user", { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_edit1", content: "The file /workspace/hello_world.py has been updated." }] }),
    line("assistant", assistant("msg_q4", [{ type: "text", text: "Done: greet() now reads GREETING_NAME and falls back to Friend." }]))
  ]
  return `${text.trimEnd()}\n${appended.join("\n")}\n`
}

describe("the source a task prompt is reconstructed from", () => {
  it("keeps the user's own prompts of a real session and none of Claude's text, tool calls or tool output", () => {
    const source = sourceOf(WORKSPACE)
    expect(source.map((message) => message.text)).toEqual([
      "can you run a command ls -la",
      "ok can you create a hello_world.py file and add a minimal code in it?",
      "can you read it back with Read tool?",
      "can you run `cat nonexistent.txt`",
      "do something requiring multiple tools in one turn,"
    ])
    const all = everything(WORKSPACE)
    // Tool output (the listing, the failing cat), Claude's account of its work and its tool calls.
    expect(all).not.toMatch(/IMPLEMENTATION_REPORT|No such file or directory|drwx/)
    expect(all).not.toMatch(/Done! I've created|Hello, World|number_generator/)
    // The /compact command and its summary (Claude's account of the session) are no request.
    expect(all).not.toMatch(/continued from a previous conversation|compact/i)
  })

  it("keeps the question Claude asked right before a reply, and drops its report of what it did (b3edadab)", () => {
    const source = sourceOf(B3)
    const reply = source.find((message) => message.text.startsWith("Ok ultrathink and come up"))!
    // Its greeting is not a question: only the question is kept.
    expect(reply.asked).toBe("What can I help you with?")
    // "Done! I've created `test-file.txt`…" came before "ok edit it": a report, not a question.
    expect(source.find((message) => message.text === "ok edit it and add some content")!.asked).toBeNull()
    expect(everything(B3)).not.toMatch(/test-file\.txt|Done|Task agent successfully|Enigma/)
    // The rewound prompts (lines 28 and 35) are not the task.
    expect(everything(B3)).not.toMatch(/revert later via the checkpoint|I came from the future/)
  })

  it("keeps a slash command with its expansion, and never a tool use the user rejected without a reason", () => {
    expect(sourceOf(INIT).map((message) => message.kind)).toEqual(["command"])
    expect(sourceOf(INIT)[0]!.text).toMatch(/^\/init\n\nPlease analyze this codebase/)
    expect(sourceOf(SPOTTER).map((message) => message.text)).toEqual(["mix phx.server doesnt seem to start"])
    // /model is a built-in command: it asks for no work.
    expect(everything(SPOTTER)).not.toMatch(/\/model|Let me check the project structure/)
  })

  it("gives a terse answer the numbered question it answers, and an AskUserQuestion answer its question and options", () => {
    const source = taskSourceMessages(analysisOf(withQuestions()).conversation)
    const two = source.find((message) => message.text === "2")!
    expect(two.asked).toBe("Where should the name come from?\n\n1. A command-line argument\n2. An environment variable GREETING_NAME")
    // Claude's account and its code block before the question stay out.
    expect(two.asked).not.toMatch(/refactored|def greet|printed/)
    const answer = source.find((message) => message.kind === "answer")!
    expect(answer.text).toBe("Which default name should be used? → Friend")
    expect(answer.asked).toBe("Which default name should be used?\n1. World — Keep the current greeting\n2. Friend — A warmer default")
    const all = source.map(renderSourceMessage).join("\n")
    expect(all).not.toMatch(/os\.environ|has been updated|falls back to Friend|toolu_edit1/)
    expect(renderSourceMessage(two)).toBe(`[Claude asked] ${two.asked}\n[The user answered] 2`)
  })

  it("selects a chunk's messages by its split points, the earlier prompts as background", () => {
    const analysis = analysisOf(fs.readFileSync(B3, "utf8"), B3)
    const points = splitPoints(analysis.request.turns, [], null)
    const source = taskSourceMessages(analysis.conversation)
    const chunk = sourceInRange(source, points, { start: points[4]!.message_id, end: points[6]!.message_id })
    expect(chunk.messages.map((message) => message.text.slice(0, 20))).toEqual(["Hi", "Ok ultrathink and co", "Ok ultrathink and tr"])
    expect(chunk.earlier).toHaveLength(4)
    expect(sourceInRange(source, points, undefined).messages).toHaveLength(source.length)
  })

  it("reads no question into a message that only reports, nor into a question mark inside code", () => {
    expect(askingPart("I ran the tests and all 12 passed.")).toBeNull()
    expect(askingPart("Here is the fix:\n\n```js\nconst a = b ? c : d\n```")).toBeNull()
    expect(askingPart("I changed `a ? b : c` to an if statement.")).toBeNull()
    expect(askingPart("Fixed it.\n\nShould I also update the docs?")).toBe("Should I also update the docs?")
    expect(askingPart("I added Redis caching to the API and all tests pass. Should I add a TTL?")).toBe("Should I add a TTL?")
    expect(askingPart("I did:\n- moved the cache to Redis\n- added tests\nWhich should come next?\n1. Metrics\n2. Docs")).toBe("Which should come next?\n1. Metrics\n2. Docs")
    expect(askingPart("1. Moved the cache to Redis\n2. Added tests\n\nShall I continue?")).toBe("Shall I continue?")
  })

  it("keeps the answers in the copies with task notifications out of the source", () => {
    const file = path.join(CLAUDE_EXTRA, "projects", "-workspace", "c45af7b1-cb7c-4e51-93db-8cbb250a877a.jsonl")
    expect(everything(file)).not.toMatch(/task-notification/)
    expect(sourceOf(file)).toHaveLength(5)
  })
})
