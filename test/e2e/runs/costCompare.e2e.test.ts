/**
 * Both costs and no silent apples-to-oranges (README, "Cost" and "Comparability"), through the real
 * daemon over HTTP with the fake Codex CLI and a real Claude transcript: Codex runs priced from the
 * table or the CODEX_REPLAY_PRICING file, a refused start when an empty beginning was not accepted
 * while Claude changed existing files, and the comparability panel of report.json and report.html.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listTree, runDaemonToExit } from "../../support/daemon.js"
import { CLAUDE_HOME } from "../../support/fixtures.js"
import { approveAndStart, awaitTerminal, type Daemon, killAllDaemons, nonGitConfig, runDirectories, scratch, startDaemon } from "../../runs/support.js"

/** A real session (fixture) whose project directory is not on this machine and in which Claude modified CLAUDE.md. */
const DEMO_THREAD = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
const DEMO_FILE = path.join(CLAUDE_HOME, "projects", "-path-to-Demo", `${DEMO_THREAD}.jsonl`)
const UNPRICED = "gpt-7-preview"
const NOT_PRICED_TEXT = `${UNPRICED} is not priced — add it to CODEX_REPLAY_PRICING.`

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const writeJson = (file: string, value: unknown) => {
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value))
  return file
}

/** The fake CLI's `debug models` offering one priced and one unpriced model. */
const modelsFile = (directory: string) =>
  writeJson(path.join(directory, "models.json"), {
    models: [
      { slug: "gpt-5.6-sol", display_name: "GPT-5.6-Sol", visibility: "list", supported_in_api: true, priority: 1 },
      { slug: UNPRICED, display_name: "GPT-7 Preview", visibility: "list", supported_in_api: true, priority: 2 }
    ]
  })

const demoConfig = (overrides: Record<string, unknown> = {}) => ({
  thread_id: DEMO_THREAD,
  request: "Update CLAUDE.md to the current state of the project.",
  beginning_kind: "non_git",
  ending_kind: "non_git",
  created_by_claude: [],
  confirm_file_selection: true,
  model: "gpt-5.6-sol",
  timeout_seconds: 600,
  ...overrides
})

describe("Codex cost beside Claude's", () => {
  let daemon: Daemon
  beforeAll(async () => {
    const root = scratch()
    const pricing = writeJson(path.join(root, "pricing.json"), {
      models: { "gpt-5.6-sol": { input_per_million: 1, cached_input_per_million: 0.1, output_per_million: 4 } }
    })
    daemon = await startDaemon({ root, env: { CODEX_REPLAY_PRICING: pricing, FAKE_CODEX_MODELS_FILE: modelsFile(root) } })
  })
  afterAll(() => daemon.stop())

  it("prices a run from the override file, says so for a model without a price, and states what the figure is", async () => {
    const started = await approveAndStart(daemon, nonGitConfig({ model: undefined, models: ["gpt-5.6-sol", UNPRICED] }))
    const reports = await Promise.all(started.runs.map(async (entry: { run_id: string }) => {
      const run = await awaitTerminal(daemon, entry.run_id)
      expect(run.status).toBe("completed")
      return {
        json: JSON.parse(fs.readFileSync(run.report_json, "utf8")),
        html: fs.readFileSync(run.report_html, "utf8")
      }
    }))
    const [priced, unpriced] = reports
    const tokens = priced!.json.candidates.codex.tokens
    // The fake CLI reports 1200 input tokens of which 400 were cached, and 300 output tokens.
    expect(tokens).toMatchObject({ ordinary_input: 800, cache_read: 400, cache_write: 0, output: 300 })
    expect(priced!.json.candidates.codex.cost).toEqual({
      usd: (800 * 1 + 400 * 0.1 + 300 * 4) / 1_000_000,
      reason: null,
      basis: "API equivalent (CODEX_REPLAY_PRICING)"
    })
    expect(priced!.json.cost_note).toContain("A ChatGPT-plan user is not billed per token")
    expect(priced!.json.cost_note).toContain("API equivalent")
    // Claude's cost sits beside it in the same table.
    const claudeCost = priced!.json.candidates.claude.cost
    expect(priced!.html).toMatch(/<tr><th scope="row">Cost<\/th><td class="metric[^"]*">\$0\.0020/)
    expect(priced!.html).toContain(claudeCost.usd === null ? `Not available: ${claudeCost.reason}` : "$")
    expect(priced!.html).toContain("A ChatGPT-plan user is not billed per token for Codex")
    expect(priced!.html).toContain("Codex priced from: API equivalent (CODEX_REPLAY_PRICING).")

    expect(unpriced!.json.candidates.codex.cost).toEqual({ usd: null, reason: NOT_PRICED_TEXT })
    expect(unpriced!.html).toContain(`Not available: ${NOT_PRICED_TEXT}`)
    expect(unpriced!.html).not.toMatch(/<tr><th scope="row">Cost<\/th><td class="metric[^"]*">\$0\.0000/)

    // Every model Codex offers here implements a run, so Codex's default model reviews: a self-review, labelled so,
    // which makes it not like-for-like; a created-files-only empty beginning is reported as such.
    expect(priced!.json.caveats).toEqual(expect.arrayContaining([
      { kind: "not_like_for_like", label: "not like-for-like", detail: "The reviewer judged its own replay." },
      { kind: "self_review", label: "self-review", detail: "gpt-5.6-sol judged its own replay against Claude's result." }
    ]))
    expect(unpriced!.json.about_review).toMatchObject({ reviewer_model: "gpt-5.6-sol", self_review: false })
    expect(priced!.json.comparability).toMatchObject({
      beginning: "empty_created_only",
      beginning_label: "Empty directory (Claude only created files)",
      existing_files_changed: [],
      reviewer_model: "gpt-5.6-sol",
      implementer_model: "gpt-5.6-sol",
      self_review: true,
      like_for_like: false,
      concerns: ["Self-review: the reviewer (gpt-5.6-sol) is the model that implemented the replay."]
    })
    expect(priced!.html).toContain('<h2 id="comparability-heading">Comparability</h2>')
    if (priced!.json.winner !== "inconclusive") {
      expect(priced!.html).toContain('<span class="not-like-for-like">(not like-for-like)</span></h2>')
    }
  }, 60_000)
})

describe("an empty beginning while Claude changed existing files", () => {
  let daemon: Daemon
  beforeAll(async () => {
    const root = scratch()
    const projects = path.join(root, "claude", "projects", "-path-to-Demo")
    fs.mkdirSync(projects, { recursive: true })
    fs.copyFileSync(DEMO_FILE, path.join(projects, `${DEMO_THREAD}.jsonl`))
    daemon = await startDaemon({ root })
  })
  afterAll(() => daemon.stop())

  it("is blocked over /api/call until accepted explicitly, and nothing is started", async () => {
    const inspection = await daemon.call("inspect_thread", { thread_id: DEMO_THREAD })
    expect(inspection.file_selection.preexisting_files).toEqual(["CLAUDE.md"])
    const prepared = await daemon.call("prepare_run", demoConfig())
    expect(prepared).toMatchObject({ ready: false, status: "blocked", prepare_token: null })
    expect(prepared.blockers).toEqual([
      "Claude modified 1 file(s) that existed before the session (CLAUDE.md), so a replay from an empty folder is not like-for-like: " +
        "pass --repo PATH or fill “Repository folder” in Configure with the folder that holds the thread's repository now, " +
        "or accept it anyway (pass --accept-empty-beginning or tick “Start from an empty folder” in Configure)."
    ])
    const refused = await daemon.refused("start_run", { ...demoConfig(), approved: true, prepare_token: "x".repeat(43) })
    expect(refused).toBe("The prepare token is unknown to this controller or has expired. Prepare and approve the run again.")
    // A token approved for the accepted configuration does not start the unaccepted one.
    const accepted = await daemon.call("prepare_run", demoConfig({ confirm_empty_beginning: true }))
    expect(accepted.ready).toBe(true)
    const changed = await daemon.refused("start_run", { ...demoConfig(), approved: true, prepare_token: accepted.prepare_token })
    expect(changed).toBe("The approved configuration changed. Prepare and approve it again.")
    expect(runDirectories(daemon.runRoot)).toEqual([])
  })

  it("accepted, it runs, and the report's comparability panel says why the verdict is not like-for-like", async () => {
    const started = await approveAndStart(daemon, demoConfig({ confirm_empty_beginning: true }))
    const run = await awaitTerminal(daemon, started.run_id)
    expect(run.status).toBe("completed")
    const report = JSON.parse(fs.readFileSync(run.report_json, "utf8"))
    expect(report.comparability).toMatchObject({
      beginning: "empty_with_existing_changes",
      beginning_label: "Empty directory while Claude changed existing files",
      existing_files_changed: ["CLAUDE.md"],
      // With no reviewer named, one that implements none of the runs.
      reviewer_model: "gpt-5.6-terra",
      self_review: false,
      claude_final_response_missing: false,
      like_for_like: false
    })
    expect(report.comparability.capability_gaps.length).toBeGreaterThan(0)
    expect(report.comparability.concerns[0]).toBe(
      "The replay started from an empty directory, while Claude changed 1 file that already existed (CLAUDE.md)."
    )
    const html = fs.readFileSync(run.report_html, "utf8")
    expect(html).toContain("<th scope=\"row\">Beginning state</th><td>Empty directory while Claude changed existing files</td>")
    expect(html).toContain("<li>The replay started from an empty directory, while Claude changed 1 file that already existed (CLAUDE.md).</li>")
    expect(html).toContain("<th scope=\"row\">Reviewer</th><td>gpt-5.6-terra (not the implementing model)</td>")
    expect(report.caveats.map((caveat: { kind: string }) => caveat.kind)).toContain("not_like_for_like")
    expect(report.caveats.map((caveat: { kind: string }) => caveat.kind)).not.toContain("self_review")
    expect(html.indexOf("Comparability")).toBeLessThan(html.indexOf("evaluation-heading"))
    // Every Codex cost is known for a listed model: gpt-5.6-sol is in the table.
    expect(report.candidates.codex.cost.usd).toBeGreaterThan(0)
  }, 60_000)
})

describe("a bad CODEX_REPLAY_PRICING file", () => {
  const cases: Array<[string, string | undefined, (file: string) => string]> = [
    ["a missing file", undefined, (file) => `CODEX_REPLAY_PRICING names ${file}, which cannot be read (ENOENT).`],
    ["malformed JSON", "{\"models\": {", (file) => `CODEX_REPLAY_PRICING names ${file}, which is not valid JSON.`],
    ["no models object", "{\"prices\": {}}", (file) => `CODEX_REPLAY_PRICING names ${file}, which must be a JSON object with a "models" object.`],
    [
      "a negative rate",
      JSON.stringify({ models: { "gpt-5.5": { input_per_million: -2, cached_input_per_million: 0.2, output_per_million: 10 } } }),
      () => 'CODEX_REPLAY_PRICING must give models["gpt-5.5"].input_per_million as a number of dollars per million tokens, zero or more.'
    ]
  ]
  it.each(cases)("stops the daemon at start on %s with one sentence, and writes nothing", async (_what, content, message) => {
    const root = scratch()
    const elsewhere = scratch()
    const file = path.join(elsewhere, "pricing.json")
    if (content !== undefined) fs.writeFileSync(file, content)
    const outcome = await runDaemonToExit({
      CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"),
      CODEX_REPLAY_CONTROLLER_PORT: "43999",
      CODEX_REPLAY_PRICING: file
    }, 30_000)
    expect(outcome.code).toBe(1)
    expect(outcome.stderr.trim()).toBe(`codex-replay: ${message(file)}`)
    expect(outcome.stdout).toBe("")
    expect(listTree(root)).toEqual([])
    expect(listTree(elsewhere)).toEqual(content === undefined ? [] : ["pricing.json"])
  }, 40_000)
})
