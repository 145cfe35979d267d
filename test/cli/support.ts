import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { BIN, REPO } from "../rpc/support.js"

export interface CliResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface RunningCli {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly done: Promise<CliResult>
}

/** Spawns the built binary (`node bin/codex-replay.js …`); run `npm run build` first. */
export const spawnCli = (args: ReadonlyArray<string>, env: Record<string, string>, input?: string): RunningCli => {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, env, stdio: ["pipe", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8")
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  child.stdin!.on("error", () => undefined)
  if (input === undefined) child.stdin!.end()
  else child.stdin!.end(input)
  const done = new Promise<CliResult>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  return { child, stdout: () => stdout, stderr: () => stderr, done }
}

/** Runs the binary to its end; kills it after `timeoutMillis` so that no test leaves it behind. */
export const runCli = async (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: { readonly input?: string; readonly timeoutMillis?: number } = {}
): Promise<CliResult> => {
  const running = spawnCli(args, env, options.input)
  const timer = setTimeout(() => running.child.kill("SIGKILL"), options.timeoutMillis ?? 20_000)
  const result = await running.done
  clearTimeout(timer)
  return result
}

export const waitUntil = async (what: string, condition: () => boolean, timeoutMillis = 20_000) => {
  const deadline = Date.now() + timeoutMillis
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The run directories of a run root (none when it does not exist yet). */
export const runDirectories = (runRoot: string) =>
  fs.existsSync(runRoot) ? fs.readdirSync(runRoot).filter((name) => name.startsWith("run-")) : []
