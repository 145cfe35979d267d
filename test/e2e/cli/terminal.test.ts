/**
 * The binary on a terminal: its log lines stay off its stderr (they go to the command log, once each), a bare
 * `codex-replay` on a terminal prints a usage hint, and its times are in the terminal's time zone (`TZ`). The
 * rest of daily use runs in process, in UTC: test/cli/dailyUse.test.ts.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { runCli as runCliWithin } from "../../cli/support.js"
import { BIN, installEnv, scratch } from "../../rpc/support.js"
import { cancelledByUser, writeRun } from "../../support/daemon.js"

const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCliWithin(args, env, { timeoutMillis: 90_000 })

describe("the terminal itself", () => {
  it("keeps log lines off the terminal: a discarded thread index is logged to the command log", async () => {
    const own = scratch("codex-replay-cli-log-")
    const ownEnv = { ...installEnv(own), TZ: "UTC" }
    const index = path.join(own, "cache", "index")
    fs.mkdirSync(index, { recursive: true })
    for (const name of ["threads-v3.json"]) fs.writeFileSync(path.join(index, name), "{ not json")
    const result = await runCli(["threads", "--limit", "1"], ownEnv)
    expect(result.code).toBe(0)
    expect(result.stderr).not.toMatch(/level=|fiber=/)
    const log = fs.readFileSync(path.join(own, "cache", "cli", "codex-replay.log"), "utf8")
    expect(log.split("\n").filter((line) => /level=WARN .*was discarded/.test(line))).toHaveLength(1)
    expect(fs.statSync(path.join(own, "cache", "cli", "codex-replay.log")).mode & 0o777).toBe(0o600)
    fs.rmSync(own, { recursive: true, force: true })
  })

  it("a bare codex-replay on a terminal prints a usage hint and ends (0)", () => {
    // `script` gives the command a terminal for stdin and stdout.
    const output = execFileSync("script", ["-qec", `${process.execPath} ${BIN}`, "/dev/null"], { env: installEnv(scratch("codex-replay-cli-hint-")), encoding: "utf8", timeout: 30_000 })
    expect(output).toContain("codex-replay threads")
    expect(output).toContain("With stdin not a terminal, codex-replay speaks MCP on stdio")
  })


  it("says times in the terminal's time zone: TZ=Asia/Tokyo reads 11:00 UTC as 20:00", async () => {
    const own = scratch("codex-replay-cli-tz-")
    const env = installEnv(own, { TZ: "Asia/Tokyo", COLUMNS: "300" })
    writeRun(env.CODEX_REPLAY_RUN_ROOT!, "run-20261130T110000Z-bbbbbbbbbb", {
      thread_id: "sample-hello-cli",
      controller_session_id: "b".repeat(32),
      model: "gpt-5.6-luna",
      ...cancelledByUser("2026-11-30T11:00:00.000Z", "2026-11-30T11:02:00.000Z")
    })
    const report = await runCli(["report", "run-20261130T110000Z-bbbbbbbbbb"], env)
    expect(report.stderr).toBe("codex-replay: Run run-20261130T110000Z-bbbbbbbbbb: cancelled by the user at 20:02 — no report.\n")
    const runs = await runCli(["runs"], env)
    expect(runs.stdout).toContain("│ 2026-11-30 20:00 │ run-20261130T110000Z-bbbbbbbbbb │")
    // The day filters use the same zone: 20:00 in Tokyo is still the 30th, 01:00 on the 1st would not be.
    expect((await runCli(["runs", "--since", "2026-11-30", "--until", "2026-11-30", "--json"], env)).stdout).toContain("run-20261130T110000Z-bbbbbbbbbb")
    fs.rmSync(own, { recursive: true, force: true })
  })
})
