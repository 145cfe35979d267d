/**
 * `codex-replay replay` and `batch` refuse a malformed command line or environment in one sentence, before they
 * read the history or contact any controller, and write nothing. The commands in this process; the replays
 * themselves, through the binary and a controller: test/e2e/cli/.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installEnv, listTree, runtimeFiles, scratch } from "../rpc/support.js"
import { runCommandLine } from "../support/commandLine.js"

const runCli = (args: ReadonlyArray<string>, env: Record<string, string>, input?: string) =>
  runCommandLine(args, input === undefined ? { env } : { env, input })

const SAMPLE = "sample-hello-cli"
const MODEL = "gpt-5.6-terra"
/** Claude modified a file that existed before (CLAUDE.md): an empty beginning without a repository. */
const DEMO_THREAD = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"

describe("codex-replay replay: malformed command lines", () => {
  let root: string
  let env: Record<string, string>

  beforeAll(() => {
    root = scratch("codex-replay-replay-flags-")
    env = installEnv(root)
  })

  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true })
  })

  it.each([
    [["replay", SAMPLE], "Choose at least one Codex model with --model."],
    [["replay", SAMPLE, "--model", ""], "Choose at least one Codex model with --model."],
    [["replay", SAMPLE, "--model", "-x"], "Invalid Codex model name"],
    [["replay", SAMPLE, "--model", "gpt 5"], "Invalid Codex model name: \"gpt 5\"."],
    [["replay", SAMPLE, "--model", MODEL, "--model", MODEL], `--model ${MODEL} is given more than once.`],
    [["replay", SAMPLE, "--model", MODEL, "--reviewer-model", "gpt 5"], "Invalid reviewer model name: \"gpt 5\"."],
    [["replay", SAMPLE, "--model", "a", "--model", "b", "--model", "c", "--model", "d", "--model", "e"], "At most 4 models can replay one configuration."],
    [["replay", "../etc/passwd", "--model", MODEL], "The thread ID is invalid; see `codex-replay threads`."],
    [["replay", "", "--model", MODEL], "The thread ID is invalid"],
    [["replay", "--model", MODEL], "Missing argument <thread-id>"],
    [["replay", SAMPLE, "--model"], "--model needs a value: --model MODEL."],
    [["replay", SAMPLE, "--model", MODEL, "--yes", "--yes"], "--yes is given more than once; give it once."],
    [["replay", SAMPLE, "--model", MODEL, "--approve"], "`codex-replay replay` has no flag --approve;"],
    [["replay", SAMPLE, "--model", MODEL, "--yes=perhaps"], "--yes takes no value (got \"--yes=perhaps\")."],
    [["replay", SAMPLE, "--model", MODEL, "--yes=no"], "--yes takes no value"],
    [["replay", SAMPLE, "--model", MODEL, "--json=1x"], "--json takes no value"],
    [["replay", SAMPLE, "--model", MODEL, "--check", "npm test", "--no-checks"], "Give --check and --setup, or --no-checks, not both."],
    [["replay", SAMPLE, "--model", MODEL, "--check", " "], "--check takes one command of one line without control characters, at most 1000 characters"],
    [["replay", SAMPLE, "--model", MODEL, "--setup", "npm ci\nrm -rf /"], "--setup takes one command of one line without control characters"],
    [["replay", SAMPLE, "--model", MODEL, "--check"], "--check needs a value: --check CMD."],
    [["replay", SAMPLE, "--model", MODEL, "--no-checks", "--no-checks"], "--no-checks is given more than once; give it once."]
  ])("refuses %j before contacting any controller", { concurrent: true }, async (args, message) => {
    const result = await runCli(args, env)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(message)
    expect(result.stdout).toBe("")
    expect(listTree(root)).toEqual([])
  })
})

describe("codex-replay replay: invalid environment", () => {
  it("says which variable is wrong and launches nothing", async () => {
    const root = scratch("codex-replay-replay-env-")
    try {
      const result = await runCli(["replay", SAMPLE, "--model", MODEL, "--yes"], installEnv(root, { CODEX_REPLAY_CONTROLLER_PORT: "99999" }))
      expect(result.code).toBe(1)
      expect(result.stderr).toContain("codex-replay: CODEX_REPLAY_CONTROLLER_PORT must be from 1024 through 65535.")
      expect(result.stdout).toBe("")
      expect(listTree(root)).toEqual([])
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })
})

describe("codex-replay batch: malformed command lines", () => {
  it.each([
    [["batch", "--model", MODEL], "Choose the threads with exactly one of --query, --threads and --recent."],
    [["batch", "--recent", "2", "--query", "x", "--model", MODEL], "Choose the threads with exactly one of --query, --threads and --recent."],
    [["batch", "--recent", "0", "--model", MODEL], "--recent must be a whole number from 1 through 100."],
    [["batch", "--recent", "two", "--model", MODEL], "--recent must be a whole number from 1 through 100."],
    [["batch", "--recent", "2"], "Choose at least one Codex model with --model."],
    [["batch", "--threads", "a,../b", "--model", MODEL], "Invalid thread ID \"../b\"; see `codex-replay threads`."],
    [["batch", "--threads", "a,b,a", "--model", MODEL], "Thread a is given more than once in --threads."],
    [["batch", "--recent", "2", "--model", MODEL, "--yes=no"], "--yes takes no value (got \"--yes=no\")."]
  ])("%j is refused in one sentence before anything is contacted", async (args, message) => {
    const root = scratch("codex-replay-batch-flags-")
    const env = installEnv(root)
    const result = await runCli(args, env)
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe(`codex-replay: ${message}`)
    expect(result.stdout).toBe("")
    expect(runtimeFiles(env)).toEqual([])
    expect(fs.existsSync(env.CODEX_REPLAY_RUN_ROOT!)).toBe(false)
    fs.rmSync(root, { recursive: true, force: true })
  })
})

describe("--repeats", () => {
  it.each([
    [["replay", SAMPLE, "--model", MODEL, "--repeats", "0"]],
    [["replay", SAMPLE, "--model", MODEL, "--repeats", "6"]],
    [["replay", SAMPLE, "--model", MODEL, "--repeats", "2.5"]],
    [["replay", SAMPLE, "--model", MODEL, "--repeats", "x"]],
    [["batch", "--recent", "1", "--model", MODEL, "--repeats", "6"]],
    [["batch", "--recent", "1", "--model", MODEL, "--repeats", "x"]]
  ])("%j is refused in one sentence before anything is contacted", async (args) => {
    const root = scratch("codex-replay-repeats-flags-")
    const env = installEnv(root)
    const result = await runCli(args, env)
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe("codex-replay: --repeats must be a whole number from 1 through 5.")
    expect(result.stdout).toBe("")
    expect(runtimeFiles(env)).toEqual([])
    expect(fs.existsSync(env.CODEX_REPLAY_RUN_ROOT!)).toBe(false)
    fs.rmSync(root, { recursive: true, force: true })
  })
})

describe("an empty beginning, a pricing file and the Codex path", () => {
  it("refuses --accept-empty-beginning=yes as a switch given a value, before contacting anything", async () => {
    const root = scratch("codex-replay-cli-accept-")
    const env = installEnv(root)
    const result = await runCli(["replay", DEMO_THREAD, "--model", MODEL, "--accept-empty-beginning=yes"], env)
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe('codex-replay: --accept-empty-beginning takes no value (got "--accept-empty-beginning=yes").')
    expect(listTree(root)).toEqual([])
    fs.rmSync(root, { recursive: true, force: true })
  })

  it("a bad CODEX_REPLAY_PRICING stops the command with one sentence before anything is contacted or written", async () => {
    const root = scratch("codex-replay-cli-pricing-")
    const pricing = path.join(root, "pricing.json")
    fs.writeFileSync(pricing, "not json")
    const env = installEnv(root, { CODEX_REPLAY_PRICING: pricing })
    const result = await runCli(["replay", DEMO_THREAD, "--model", MODEL, "--yes"], env)
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe(`codex-replay: CODEX_REPLAY_PRICING names ${pricing}, which is not valid JSON.`)
    expect(listTree(root)).toEqual(["pricing.json"])
    fs.rmSync(root, { recursive: true, force: true })
  })
  it("a CODEX_CLI_PATH that names nothing is said before any controller starts; nothing is written", async () => {
    const root = scratch("codex-replay-cli-nocodex-")
    const result = await runCli(["replay", "sample-hello-cli", "--model", MODEL], installEnv(root, { CODEX_CLI_PATH: "/nonexistent/codex" }), "y\n")
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe(
      "codex-replay: The Codex CLI /nonexistent/codex (CODEX_CLI_PATH) does not exist or is not executable: install Codex (npm install -g @openai/codex) or set CODEX_CLI_PATH to its executable."
    )
    expect(listTree(root)).toEqual([])
    fs.rmSync(root, { recursive: true, force: true })
  })
})
