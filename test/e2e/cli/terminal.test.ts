/**
 * The binary on a terminal: its log lines stay off its stderr (they go to the command log), and a bare
 * `codex-replay` on a terminal prints a usage hint. The rest of daily use runs in process: test/cli/dailyUse.test.ts.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { runCli as runCliWithin } from "../../cli/support.js"
import { BIN, installEnv, scratch } from "../../rpc/support.js"

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
    expect(log).toMatch(/level=WARN .*was discarded/)
    expect(fs.statSync(path.join(own, "cache", "cli", "codex-replay.log")).mode & 0o777).toBe(0o600)
    fs.rmSync(own, { recursive: true, force: true })
  })

  it("a bare codex-replay on a terminal prints a usage hint and ends (0)", () => {
    // `script` gives the command a terminal for stdin and stdout.
    const output = execFileSync("script", ["-qec", `${process.execPath} ${BIN}`, "/dev/null"], { env: installEnv(scratch("codex-replay-cli-hint-")), encoding: "utf8", timeout: 30_000 })
    expect(output).toContain("codex-replay threads")
    expect(output).toContain("With stdin not a terminal, codex-replay speaks MCP on stdio")
  })

})
