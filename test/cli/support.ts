import * as fs from "node:fs"
import { type BinResult, runBin, spawnBin, type SpawnedBin } from "../support/spawnBin.js"

export type CliResult = BinResult
export type RunningCli = SpawnedBin

/** Spawns the built binary (`node bin/codex-replay.js …`); run `npm run build` first. */
export const spawnCli = (args: ReadonlyArray<string>, env: Record<string, string>, input?: string): RunningCli =>
  spawnBin(args, { env, input })

/** Runs the binary to its end; kills it after `timeoutMillis` so that no test leaves it behind. */
export const runCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: { readonly input?: string; readonly timeoutMillis?: number } = {}
): Promise<CliResult> => runBin(args, { env, ...options })

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

/** The controller daemons (`codex-replay --http`) running for this run root, read from /proc. */
export const daemonsOf = (runRoot: string) =>
  fs.readdirSync("/proc").filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      const environment = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")
      return command.includes("--http") && environment.includes(`CODEX_REPLAY_RUN_ROOT=${runRoot}`)
    } catch {
      return false
    }
  })
