/**
 * Rebuilds the packaged samples (run from the repository root: `npx tsx samples/build-samples.ts`).
 * Each sample is a small, hand-written Claude Code transcript in the 2.0.x format plus, for the git sample,
 * a git bundle of the project whose history matches the transcript's timestamps. Dates and identities are
 * fixed, so the bundle and its commit ids are reproducible.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { unifiedDiff } from "../src/domain/history/diff.js"

const root = path.dirname(new URL(import.meta.url).pathname)

let counter = 0
const uuid = () => {
  counter += 1
  return `00000000-0000-4000-8000-${counter.toString(16).padStart(12, "0")}`
}

const hunksOf = (before: string, after: string) => {
  const text = unifiedDiff("f", before, after)
  const hunks: Array<{ oldStart: number; oldLines: number; newStart: number; newLines: number; lines: Array<string> }> = []
  for (const line of text.split("\n")) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line)
    if (header !== null) {
      hunks.push({
        oldStart: Number(header[1]),
        oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newLines: header[4] === undefined ? 1 : Number(header[4]),
        lines: []
      })
    } else if (hunks.length > 0 && /^[ +\-\\]/.test(line)) hunks[hunks.length - 1]!.lines.push(line)
  }
  return hunks
}

interface Session {
  readonly sessionId: string
  readonly cwd: string
  readonly branch: string
  readonly lines: Array<Record<string, unknown>>
  parent: string | null
}

const envelope = (session: Session, at: string) => ({
  parentUuid: session.parent,
  isSidechain: false,
  userType: "external",
  cwd: session.cwd,
  sessionId: session.sessionId,
  version: "2.0.76",
  gitBranch: session.branch,
  timestamp: at
})

const userPrompt = (session: Session, at: string, text: string) => {
  const id = uuid()
  session.lines.push({ ...envelope(session, at), type: "user", message: { role: "user", content: text }, uuid: id })
  session.parent = id
}

let messageCounter = 0
const assistant = (session: Session, at: string, blocks: Array<Record<string, unknown>>, output: number) => {
  messageCounter += 1
  const messageId = `msg_sample${messageCounter.toString().padStart(4, "0")}`
  blocks.forEach((block, index) => {
    const id = uuid()
    session.lines.push({
      ...envelope(session, at),
      type: "assistant",
      message: {
        model: "claude-sonnet-4-5-20250929",
        id: messageId,
        type: "message",
        role: "assistant",
        content: [block],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 12,
          cache_creation_input_tokens: 1800,
          cache_read_input_tokens: 14_000 + messageCounter * 600,
          cache_creation: { ephemeral_5m_input_tokens: 1800, ephemeral_1h_input_tokens: 0 },
          output_tokens: index === blocks.length - 1 ? output : 8,
          service_tier: "standard"
        }
      },
      requestId: `req_sample${messageCounter}`,
      uuid: id
    })
    session.parent = id
  })
}

const toolResult = (session: Session, at: string, toolUseId: string, text: string, result: unknown) => {
  const id = uuid()
  session.lines.push({
    ...envelope(session, at),
    type: "user",
    message: { role: "user", content: [{ tool_use_id: toolUseId, type: "tool_result", content: text }] },
    uuid: id,
    toolUseResult: result
  })
  session.parent = id
}

const write = (file: string, lines: ReadonlyArray<Record<string, unknown>>) =>
  fs.writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n")

const GREET = `import sys


def main(argv):
    name = argv[0] if argv else "World"
    print(f"Hello, {name}!")


if __name__ == "__main__":
    main(sys.argv[1:])
`

const buildHelloSample = () => {
  const directory = path.join(root, "hello-cli")
  fs.mkdirSync(directory, { recursive: true })
  const session: Session = { sessionId: "5a3b1e00-0000-4000-8000-000000000001", cwd: "/sample/hello-cli", branch: "", lines: [], parent: null }
  userPrompt(session, "2025-06-02T10:00:00.000Z",
    "Create greet.py: a small Python script that prints \"Hello, <name>!\" for the name given as its first argument, and \"Hello, World!\" without one.")
  assistant(session, "2025-06-02T10:00:04.000Z", [
    { type: "text", text: "I'll create greet.py with a main function that reads the optional name argument." },
    { type: "tool_use", id: "toolu_sample_write_greet", name: "Write", input: { file_path: "/sample/hello-cli/greet.py", content: GREET } }
  ], 160)
  toolResult(session, "2025-06-02T10:00:06.000Z", "toolu_sample_write_greet", "File created successfully at: /sample/hello-cli/greet.py", {
    type: "create", filePath: "/sample/hello-cli/greet.py", content: GREET, structuredPatch: [], originalFile: null
  })
  assistant(session, "2025-06-02T10:00:09.000Z", [
    { type: "text", text: "Created `greet.py`. Run `python greet.py Ada` to print \"Hello, Ada!\"; without an argument it prints \"Hello, World!\"." }
  ], 48)
  write(path.join(directory, "thread.jsonl"), session.lines)
  fs.writeFileSync(path.join(directory, "sample.json"), JSON.stringify({
    id: "sample-hello-cli",
    title: "Sample: create a greeting script (non-git)",
    description: "A one-prompt task in an empty directory: Claude writes greet.py.",
    transcript: "thread.jsonl"
  }, null, 2) + "\n")
}

const WC_BEFORE = `import sys


def count_lines(text):
    return len(text.splitlines())


def main(argv):
    text = sys.stdin.read()
    print(count_lines(text))


if __name__ == "__main__":
    main(sys.argv[1:])
`

const WC_AFTER = `import sys


def count_lines(text):
    return len(text.splitlines())


def count_words(text):
    return len(text.split())


def main(argv):
    text = sys.stdin.read()
    if "--words" in argv:
        print(count_words(text))
    else:
        print(count_lines(text))


if __name__ == "__main__":
    main(sys.argv[1:])
`

const TEST_WC = `from wc import count_lines, count_words


def test_count_lines():
    assert count_lines("a b\\nc\\n") == 2


def test_count_words():
    assert count_words("a b\\nc\\n") == 3
`

const git = (cwd: string, args: ReadonlyArray<string>, at: string) =>
  execFileSync("git", [...args], {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Sample Author",
      GIT_AUTHOR_EMAIL: "sample@example.com",
      GIT_COMMITTER_NAME: "Sample Author",
      GIT_COMMITTER_EMAIL: "sample@example.com",
      GIT_AUTHOR_DATE: `${at} +0000`,
      GIT_COMMITTER_DATE: `${at} +0000`
    }
  }).trim()

const buildWordCountSample = () => {
  const directory = path.join(root, "word-count")
  fs.mkdirSync(directory, { recursive: true })
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), "sample-word-count-"))
  git(repo, ["init", "-q", "-b", "main"], "2025-06-01T09:00:00")
  fs.writeFileSync(path.join(repo, "wc.py"), WC_BEFORE)
  fs.writeFileSync(path.join(repo, "README.md"), "# wc\n\nCounts the lines of standard input.\n")
  git(repo, ["add", "."], "2025-06-01T09:00:00")
  git(repo, ["commit", "-q", "-m", "Count lines of standard input"], "2025-06-01T09:00:00")
  const baseline = git(repo, ["rev-parse", "HEAD"], "2025-06-01T09:00:00")

  const cwd = "/sample/word-count"
  const session: Session = { sessionId: "5a3b1e00-0000-4000-8000-000000000002", cwd, branch: "main", lines: [], parent: null }
  userPrompt(session, "2025-06-02T10:00:00.000Z",
    "Add a --words option to wc.py that prints the number of words instead of lines, and add pytest tests for both counts in test_wc.py.")
  assistant(session, "2025-06-02T10:00:05.000Z", [
    { type: "text", text: "I'll add a count_words function, switch on --words in main, and add tests." },
    {
      type: "tool_use",
      id: "toolu_sample_edit_wc",
      name: "Edit",
      input: { file_path: `${cwd}/wc.py`, old_string: "    print(count_lines(text))", new_string: "    if \"--words\" in argv:\n        print(count_words(text))\n    else:\n        print(count_lines(text))" }
    }
  ], 210)
  // The recorded result carries the whole change (count_words and the switch), as one Edit's patch.
  toolResult(session, "2025-06-02T10:00:07.000Z", "toolu_sample_edit_wc", `The file ${cwd}/wc.py has been updated.`, {
    filePath: `${cwd}/wc.py`,
    oldString: "    print(count_lines(text))",
    newString: "    if \"--words\" in argv:\n        print(count_words(text))\n    else:\n        print(count_lines(text))",
    originalFile: WC_BEFORE,
    structuredPatch: hunksOf(WC_BEFORE, WC_AFTER),
    userModified: false,
    replaceAll: false
  })
  assistant(session, "2025-06-02T10:00:10.000Z", [
    { type: "tool_use", id: "toolu_sample_write_test", name: "Write", input: { file_path: `${cwd}/test_wc.py`, content: TEST_WC } }
  ], 140)
  toolResult(session, "2025-06-02T10:00:12.000Z", "toolu_sample_write_test", `File created successfully at: ${cwd}/test_wc.py`, {
    type: "create", filePath: `${cwd}/test_wc.py`, content: TEST_WC, structuredPatch: [], originalFile: null
  })
  assistant(session, "2025-06-02T10:00:20.000Z", [
    { type: "text", text: "Added `count_words` and a `--words` switch to `wc.py` (lines remain the default), plus `test_wc.py` with one test per count. Run `pytest` to check them." }
  ], 64)
  write(path.join(directory, "thread.jsonl"), session.lines)

  fs.writeFileSync(path.join(repo, "wc.py"), WC_AFTER)
  fs.writeFileSync(path.join(repo, "test_wc.py"), TEST_WC)
  git(repo, ["add", "."], "2025-06-02T10:05:00")
  git(repo, ["commit", "-q", "-m", "Add --words option and tests"], "2025-06-02T10:05:00")
  const ending = git(repo, ["rev-parse", "HEAD"], "2025-06-02T10:05:00")
  const bundle = path.join(directory, "repository.bundle")
  fs.rmSync(bundle, { force: true })
  git(repo, ["bundle", "create", "-q", bundle, "main"], "2025-06-02T10:05:00")
  fs.rmSync(repo, { recursive: true, force: true })
  fs.writeFileSync(path.join(directory, "sample.json"), JSON.stringify({
    id: "sample-word-count",
    title: "Sample: add a --words option (git)",
    description: "A task in a small git repository: Claude edits wc.py and adds tests; the bundle holds both commits.",
    transcript: "thread.jsonl",
    repository_bundle: "repository.bundle",
    branch: "main",
    baseline_commit: baseline,
    ending_commit: ending
  }, null, 2) + "\n")
}

buildHelloSample()
buildWordCountSample()
