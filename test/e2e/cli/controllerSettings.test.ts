/**
 * A running controller whose reviewer setting (CODEX_REPLAY_REVIEWER_MODEL) or Codex prices (CODEX_REPLAY_PRICING)
 * are not the command line's is never reused silently: the CLI says so in one sentence and starts one with its own.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { type Daemon, runtimeFiles, startDaemon } from "../../rpc/support.js"
import { runCli as runCliWithin } from "../../cli/support.js"

const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runCliWithin(args, env, { timeoutMillis: 90_000 })

let daemon: Daemon | undefined
afterAll(async () => {
  await daemon?.stop()
})

const stateOf = async (runtime: { readonly port: number; readonly api_token: string }) => {
  const answer = await fetch(`http://127.0.0.1:${runtime.port}/api/call`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: `http://127.0.0.1:${runtime.port}`, Authorization: `Bearer ${runtime.api_token}` },
    body: JSON.stringify({ name: "get_state", arguments: {} })
  }).then((response) => response.json())
  return answer.structuredContent.state as { reviewer_model: string | null }
}

const prices = (input: number) =>
  JSON.stringify({ models: { "gpt-5.5": { input_per_million: input, cached_input_per_million: 0.5, output_per_million: 30 } } })

describe("a controller with other reviewer or pricing settings", () => {
  it("is not reused: the CLI names the difference in one sentence and starts one with its own settings", { timeout: 600_000 }, async () => {
    daemon = await startDaemon()
    const fresh = { CODEX_REPLAY_CONTROLLER_SESSION_ID: "" }
    // The running controller has no reviewer setting; the command line asks for one.
    const withReviewer = { ...daemon.env, ...fresh, CODEX_REPLAY_REVIEWER_MODEL: "gpt-5.5" }
    const reviewer = await runCli(["open"], withReviewer)
    expect(reviewer.code).toBe(0)
    expect(reviewer.stdout).not.toBe(`${daemon.launchUrl}\n`)
    expect(reviewer.stderr).toMatch(new RegExp(
      `^Started controller [a-f0-9]{32} for .*/projects \\(controller ${daemon.sessionId} is running but its reviewer setting differs ` +
        `\\(CODEX_REPLAY_REVIEWER_MODEL unset there, = gpt-5\\.5 here\\)\\)\\.\n$`
    ))
    const started = runtimeFiles(daemon.env).find((file) => file.controller_session_id !== daemon!.sessionId)!
    expect((await stateOf(started)).reviewer_model).toBe("gpt-5.5")
    expect((await stateOf({ port: daemon.port, api_token: daemon.apiToken })).reviewer_model).toBeNull()
    // Asked again with the same setting: that controller is reused.
    const again = await runCli(["open"], withReviewer)
    expect(again.stderr).toContain(`Reused controller ${started.controller_session_id}`)

    // A pricing file: another controller; the same file reuses it; the file edited since it started does not.
    const pricing = path.join(daemon.root, "prices.json")
    fs.writeFileSync(pricing, prices(5))
    const withPricing = { ...daemon.env, ...fresh, CODEX_REPLAY_PRICING: pricing }
    const priced = await runCli(["open"], withPricing)
    expect(priced.code).toBe(0)
    expect(priced.stderr).toContain(`its Codex prices differ (CODEX_REPLAY_PRICING unset there, = ${pricing} here)`)
    expect(runtimeFiles(daemon.env)).toHaveLength(3)
    expect((await runCli(["open"], withPricing)).stderr).toMatch(/^Reused controller/)
    fs.writeFileSync(pricing, prices(6))
    const edited = await runCli(["open"], withPricing)
    expect(edited.stderr).toContain(`its Codex prices differ (CODEX_REPLAY_PRICING = ${pricing} there, = ${pricing} here, the file changed since it started)`)
    expect(runtimeFiles(daemon.env)).toHaveLength(4)

    // `batch` (like `replay`) says so before it names the controller it talks to; nothing is started unapproved.
    const batch = await runCli(["batch", "--recent", "1", "--model", "gpt-5.6-sol"], { ...daemon.env, ...fresh, CODEX_REPLAY_REVIEWER_MODEL: "gpt-5.6-luna" })
    const lines = batch.stdout.split("\n")
    const controllerLine = lines.findIndex((line) => line.startsWith("Controller: "))
    expect(lines[controllerLine - 1]).toMatch(/is running but its reviewer setting differs \(CODEX_REPLAY_REVIEWER_MODEL (unset|= gpt-5\.5) there, = gpt-5\.6-luna here\)\)\.$/)
    expect(batch.stdout).toContain("Reviewer:   gpt-5.6-luna\n")
  })
})
