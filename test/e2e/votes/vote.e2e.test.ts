/**
 * The user's blind vote through the real daemon over HTTP: two replays of the packaged hello-cli sample
 * with the fake Codex CLI complete; `blind_candidates` answers the reviewer's two candidates with no
 * trace of their authors, in an order that changes between requests; a vote is stored 0600 and mapped
 * back to the authors, and `codex-replay report` shows it beside the judge's verdict. A vote on a run that
 * is not completed, a second vote, a malformed vote and a vote after the reveal each answer one sentence
 * and leave the run directory byte for byte as it was.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../../cli/support.js"
import { installEnv } from "../../rpc/support.js"
import { writeRun } from "../../support/daemon.js"
import { approveAndStart, awaitTerminal, type Daemon, killAllDaemons, nonGitConfig, startDaemon } from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const DIMENSION_IDS = ["reliability", "code_quality", "request_fulfillment", "change_scope", "safe_operations", "accurate_reporting"]
const everyDimension = (choice: string) => Object.fromEntries(DIMENSION_IDS.map((id) => [id, choice]))

/** Every file and folder below `directory` with its mode and the SHA-256 of its bytes. */
const bytesOf = (directory: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      const stat = fs.lstatSync(full)
      const key = path.relative(directory, full)
      if (entry.isDirectory()) {
        out[`${key}/`] = stat.mode.toString(8)
        walk(full)
      } else out[key] = `${stat.mode.toString(8)} ${createHash("sha256").update(fs.readFileSync(full)).digest("hex")}`
    }
  }
  walk(directory)
  return out
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

describe("a blind vote through the real daemon", () => {
  let daemon: Daemon
  let voted: string
  let revealed: string
  let raced: string
  const directoryOf = (runId: string) => path.join(daemon.runRoot, runId)

  /** Refused with one sentence, the run directory unchanged byte for byte. */
  const refusedUnchanged = async (runId: string, name: string, args: unknown) => {
    const before = bytesOf(directoryOf(runId))
    const message = await daemon.refused(name, args)
    expect(message).toMatch(/^[^\n]+[.]$/)
    expect(bytesOf(directoryOf(runId))).toEqual(before)
    return message
  }

  beforeAll(async () => {
    // Codex's side writes a greeting of its own, so that nothing in either patch names an agent.
    daemon = await startDaemon({ env: { FAKE_CODEX_WRITE_FILE: "greet.py", FAKE_CODEX_WRITE_CONTENT: "print('Hello')\n" } })
    const first = await approveAndStart(daemon, nonGitConfig())
    const second = await approveAndStart(daemon, nonGitConfig())
    const third = await approveAndStart(daemon, nonGitConfig())
    voted = first.run_id
    revealed = second.run_id
    raced = third.run_id
    for (const runId of [voted, revealed, raced]) expect((await awaitTerminal(daemon, runId, 90_000)).status).toBe("completed")
  }, 200_000)
  afterAll(() => daemon?.stop())

  /** What list_runs says of each run's blindness. */
  const blindness = async () =>
    Object.fromEntries(((await daemon.call("list_runs", {})).runs as Array<{ run_id: string; blind?: boolean }>).map((run) => [run.run_id, run.blind]))

  it("shows the reviewer's two candidates with no author trace, in a fresh order per request", async () => {
    // Before any vote or reveal, list_runs says every completed run is still blind (the page hides its verdict).
    expect(await blindness()).toEqual({ [voted]: true, [revealed]: true, [raced]: true })
    const reviews = path.join(directoryOf(voted), "reviews")
    const recorded = ["candidate-a.json", "candidate-b.json"].map((name) => readJson(path.join(reviews, name)).patch)
    const shown = await daemon.call("blind_candidates", { run_id: voted })
    expect(shown.candidates.map((candidate: { label: string }) => candidate.label)).toEqual(["first", "second"])
    expect(shown.candidates.map((candidate: { patch: string }) => candidate.patch).sort()).toEqual([...recorded].sort())
    expect(shown.task).toBe(readJson(path.join(reviews, "candidate-a.json")).task)
    expect(shown.dimensions.map((dimension: { id: string }) => dimension.id)).toEqual(DIMENSION_IDS)
    // Nothing names an author, a recorded file or a letter; the token is opaque.
    const text = JSON.stringify(shown)
    expect(text).not.toMatch(/codex|claude|anthropic|openai|gpt-|candidate-[ab]|"[AB]"/i)
    // The order is drawn afresh: over 40 requests both orders appear (a fixed order fails; chance of a false failure 2⁻³⁹).
    const firsts = new Set<string>()
    const tokens = new Set<string>()
    for (let request = 0; request < 40; request++) {
      const again = await daemon.call("blind_candidates", { run_id: voted })
      firsts.add(again.candidates[0].patch)
      tokens.add(again.ballot_token)
    }
    expect(firsts.size).toBe(2)
    expect(tokens.size).toBe(40)
  })

  it("refuses a malformed vote, an unknown token and a run that is not completed, writing nothing", async () => {
    const { ballot_token } = await daemon.call("blind_candidates", { run_id: voted })
    const valid = { run_id: voted, ballot_token, dimensions: everyDimension("first"), overall: "first" }
    expect(await refusedUnchanged(voted, "submit_vote", { ...valid, overall: "codex" })).toBe("overall must be first, second or tie.")
    expect(await refusedUnchanged(voted, "submit_vote", { ...valid, dimensions: { reliability: "first" } })).toMatch(/^dimensions/)
    expect(await refusedUnchanged(voted, "submit_vote", { ...valid, ballot_token: "forged" })).toBe(
      "The ballot token is unknown for this run (or has expired); ask for the blind candidates again."
    )
    const running = "run-20260101T000000Z-0123456789"
    writeRun(daemon.runRoot, running, { status: "running", thread_id: "sample-hello-cli", controller_session_id: daemon.sessionId })
    const notCompleted = `Run ${running} is running, not completed: only a completed run can be judged.`
    expect(await refusedUnchanged(running, "blind_candidates", { run_id: running })).toBe(notCompleted)
    expect(await refusedUnchanged(running, "submit_vote", { ...valid, run_id: running })).toBe(notCompleted)
    expect(fs.existsSync(path.join(directoryOf(voted), "vote.json"))).toBe(false)
  })

  it("stores a vote 0600, mapped back to the authors, once; codex-replay report shows it beside the judge's", async () => {
    expect(await daemon.call("vote_status", { run_id: voted })).toEqual({ run_id: voted, blind: true, reason: null, vote: null, revealed_at: null })
    const shown = await daemon.call("blind_candidates", { run_id: voted })
    const reviews = path.join(directoryOf(voted), "reviews")
    const mapping = readJson(path.join(reviews, "candidate-mapping.json")).candidate_mapping
    const firstFile = readJson(path.join(reviews, "candidate-a.json")).patch === shown.candidates[0].patch ? "A" : "B"
    const firstAuthor = mapping[firstFile]
    const secondAuthor = mapping[firstFile === "A" ? "B" : "A"]
    const dimensions = { ...everyDimension("tie"), reliability: "first", code_quality: "second" }
    const answer = await daemon.call("submit_vote", { run_id: voted, ballot_token: shown.ballot_token, dimensions, overall: "first" })
    const file = path.join(directoryOf(voted), "vote.json")
    expect(answer.vote_file).toBe(file)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const stored = readJson(file)
    expect(stored).toEqual(answer.vote)
    expect(stored.overall).toBe(firstAuthor)
    expect(stored.dimensions).toEqual({ ...everyDimension("tie"), reliability: firstAuthor, code_quality: secondAuthor })
    expect(stored.shown_first).toBe(firstFile === "A" ? "candidate-a.json" : "candidate-b.json")

    // A second vote, even with a fresh look at the candidates, is refused and changes nothing.
    expect(await refusedUnchanged(voted, "submit_vote", { run_id: voted, ballot_token: shown.ballot_token, dimensions, overall: "second" })).toBe(
      `You have already voted on run ${voted}; a run takes one blind vote.`
    )
    expect(await refusedUnchanged(voted, "blind_candidates", { run_id: voted })).toBe(`You have already voted on run ${voted}; a run takes one blind vote.`)
    expect(await daemon.call("vote_status", { run_id: voted })).toEqual({
      run_id: voted,
      blind: false,
      reason: `You have already voted on run ${voted}; a run takes one blind vote.`,
      vote: stored,
      revealed_at: null
    })

    const env = { ...installEnv(daemon.root), CODEX_REPLAY_RUN_ROOT: daemon.runRoot }
    const text = await runCli(["report", voted], env, { timeoutMillis: 60_000 })
    expect(text.code).toBe(0)
    const judge = (await daemon.call("get_run", { run_id: voted })).run.report_summary.winner
    // The fake reviewer's ballots give a verdict (a run without one would be left out of the agreement).
    expect(["codex", "claude", "tie"]).toContain(judge)
    const agrees = judge === firstAuthor
    const youLine = text.stdout.split("\n").find((line) => line.startsWith("You:"))
    expect(youLine).toBe(
      `You:     ${firstAuthor === "codex" ? "Codex wins" : "Claude wins"} (your blind vote) — 1 dimension(s) for Codex, 4 tied, 1 for Claude; the judge ${agrees ? "agrees" : "does not agree"}.`
    )
    const json = JSON.parse((await runCli(["report", voted, "--json"], env, { timeoutMillis: 60_000 })).stdout)
    expect(json.vote).toEqual({ ...stored, agrees_with_judge: agrees })
    expect(json.verdict.winner).toBe(judge)
  }, 150_000)

  it("refuses a blind vote once the run is revealed, writing nothing", async () => {
    const { ballot_token } = await daemon.call("blind_candidates", { run_id: revealed })
    const reveal = await daemon.call("reveal_run", { run_id: revealed })
    expect(reveal).toMatchObject({ run_id: revealed, first_reveal: true, vote: null })
    expect(fs.statSync(path.join(directoryOf(revealed), "revealed.json")).mode & 0o777).toBe(0o600)
    const sentence = `The verdict of run ${revealed} has been revealed, so a blind vote is no longer possible for it.`
    expect(await refusedUnchanged(revealed, "blind_candidates", { run_id: revealed })).toBe(sentence)
    expect(await refusedUnchanged(revealed, "submit_vote", { run_id: revealed, ballot_token, dimensions: everyDimension("tie"), overall: "tie" })).toBe(sentence)
    expect(await daemon.call("vote_status", { run_id: revealed })).toEqual({ run_id: revealed, blind: false, reason: sentence, vote: null, revealed_at: reveal.revealed_at })
    expect((await blindness())[revealed]).toBe(false)
    // Revealing again keeps the first time.
    const again = await daemon.call("reveal_run", { run_id: revealed })
    expect(again).toEqual({ ...reveal, first_reveal: false })
  })

  it("counts judge–user agreement in a portfolio of the two runs (n = 1: the run with a vote)", async () => {
    const env = { ...installEnv(daemon.root), CODEX_REPLAY_RUN_ROOT: daemon.runRoot }
    const result = await runCli(["portfolio", voted, revealed, "--json"], env, { timeoutMillis: 60_000 })
    expect(result.code).toBe(0)
    const model = JSON.parse(result.stdout).portfolio.models[0]
    const vote = readJson(path.join(directoryOf(voted), "vote.json")).overall
    const judge = (await daemon.call("get_run", { run_id: voted })).run.report_summary.winner
    expect(["codex", "claude", "tie"]).toContain(judge)
    const agreeing = judge === vote ? 1 : 0
    // One pair: agreeing, chance agreement is certain (no kappa); disagreeing, pₒ = pₑ = 0 (kappa 0).
    expect(model.user_agreement).toEqual({ n: 1, agreeing, share: agreeing, kappa: agreeing === 1 ? null : 0, run_ids: [voted] })
    const html = fs.readFileSync(JSON.parse(result.stdout).portfolio_html, "utf8")
    expect(html).toContain(`agree on the overall winner in ${agreeing} of 1 run(s) you voted on`)
  }, 90_000)

  it("stores one of two votes sent at once; the other is refused as a second vote", async () => {
    const tokens = await Promise.all([0, 1].map(async () => (await daemon.call("blind_candidates", { run_id: raced })).ballot_token as string))
    const answers = await Promise.allSettled(tokens.map((ballot_token, index) =>
      daemon.call("submit_vote", { run_id: raced, ballot_token, dimensions: everyDimension("tie"), overall: index === 0 ? "first" : "second" })))
    expect(answers.filter((answer) => answer.status === "fulfilled")).toHaveLength(1)
    const refused = answers.find((answer) => answer.status === "rejected")
    expect(String(refused?.reason)).toContain(`You have already voted on run ${raced}; a run takes one blind vote.`)
    const stored = readJson(path.join(directoryOf(raced), "vote.json"))
    expect(stored).toEqual((answers.find((answer) => answer.status === "fulfilled") as PromiseFulfilledResult<{ vote: unknown }>).value.vote)
    expect(fs.readdirSync(directoryOf(raced)).filter((name) => name.startsWith("vote") || name.includes(".tmp"))).toEqual(["vote.json"])
  })
})
