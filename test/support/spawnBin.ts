/**
 * The one way the tests start the built binary (`node bin/codex-replay.js …`): the CLI, a daemon
 * (`--http`) or the MCP server, on the Node that runs the tests, with its output collected. Run
 * `npm run build` first.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const REPO = fileURLToPath(new URL("../../", import.meta.url))
export const BIN = path.join(REPO, "bin", "codex-replay.js")

export interface BinResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface SpawnedBin {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** stdout and stderr as they arrived, interleaved. */
  readonly output: () => string
  /** Resolves when the process has exited and its output is read. */
  readonly done: Promise<BinResult>
}

export interface SpawnBinOptions {
  /** The whole environment of the child (nothing of the test's is added). */
  readonly env: NodeJS.ProcessEnv
  readonly cwd?: string
  /** Text for stdin, closed after it; without it stdin is closed at once. */
  readonly input?: string | undefined
  /** Another install's binary (a copy of the package), instead of this repository's. */
  readonly bin?: string
}

export const spawnBin = (args: ReadonlyArray<string>, options: SpawnBinOptions): SpawnedBin => {
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
    cwd: options.cwd ?? REPO,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  let output = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8")
    output += chunk.toString("utf8")
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
    output += chunk.toString("utf8")
  })
  child.stdin!.on("error", () => undefined)
  child.stdin!.end(options.input)
  const done = new Promise<BinResult>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  return { child, stdout: () => stdout, stderr: () => stderr, output: () => output, done }
}

/** Runs the binary to its end; kills it after `timeoutMillis` so that no test leaves it behind. */
export const runBin = async (
  args: ReadonlyArray<string>,
  options: SpawnBinOptions & { readonly timeoutMillis?: number }
): Promise<BinResult> => {
  const running = spawnBin(args, options)
  const timer = setTimeout(() => running.child.kill("SIGKILL"), options.timeoutMillis ?? 20_000)
  const result = await running.done
  clearTimeout(timer)
  return result
}
