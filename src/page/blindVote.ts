/**
 * The user's own blind vote, before the reveal: the two candidates the reviewer saw, without their authors,
 * in a random order; then the vote beside the judge's verdict (docs/verdicts.md, "Your own blind vote").
 */
import type { BlindCandidatesResult, ReplayReport, RunSummary, StoredVote } from "../domain/contracts/index.js"
import { AUTHOR_LABELS } from "../domain/report/report.js"
import { callTool, messageOf } from "./client.js"
import { byId, $, h, labelScrollRegions } from "./dom.js"
import { renderDiff } from "./diffView.js"
import { renderMarkdown } from "./markdown.js"
import { pageHost, section, read } from "./pageHost.js"
import { openResults, showRevealed } from "./results.js"
import { reportVerdictText, visibleText, winnerText } from "./verdicts.js"

const VOTE_CHOICES = [["first", "First"], ["second", "Second"], ["tie", "Tie"]] as const
const VOTED: Readonly<Record<string, string>> = { codex: AUTHOR_LABELS.codex, claude: AUTHOR_LABELS.claude, tie: "Tie" }

type Blind =
  | { readonly revealed: false; readonly shown: BlindCandidatesResult | null }
  | { readonly revealed: true; readonly vote: StoredVote | null; readonly note: string | null }

/** Per run: still blind (with the presentation shown, if any), or revealed with the user's vote. */
const blind = new Map<string, Blind>()

const isResults = (id: string) => pageHost().draft.results_run === id

export const isRevealed = (id: string) => blind.get(id)?.revealed === true

/** A completed run the controller says is still blind, unless this page revealed it since. */
export const stillBlind = (run: { readonly run_id?: string | null; readonly blind?: boolean | undefined }) =>
  run.blind === true && !(typeof run.run_id === "string" && isRevealed(run.run_id))

/**
 * In place of a verdict not revealed yet (its winner, tally, caveats and checks): a way to its Results, where
 * the user judges it blind or reveals it.
 */
export function notRevealedCell(run: Pick<RunSummary, "run_id"> & { readonly model?: string | null }, open: () => void): HTMLElement {
  return h("td", { className: "not-revealed" }, "Not revealed yet — ",
    h("a", { href: "#", "data-judge-run": run.run_id, "aria-label": `Judge it or reveal it: ${run.model ?? ""} ${run.run_id}`, text: "judge it or reveal it", onClick: (event) => {
      event.preventDefault()
      open()
    } }))
}

/** Whether the run's verdict may be shown; when not, the offer to judge it first is on the page. */
export async function blindGate(id: string): Promise<boolean> {
  const known = blind.get(id)
  if (known?.revealed === true) return true
  if (known === undefined) {
    let status
    try {
      status = await callTool("vote_status", { run_id: id })
    } catch (error) {
      // No answer about the vote is no reveal: the verdict stays hidden until the question is answered.
      if (isResults(id)) renderBlindStatusError(id, error)
      return false
    }
    if (!status.blind) {
      // Already voted, already revealed, or nothing recorded to judge: the verdict is shown, with why.
      await markRevealed(id, status.reason)
      return true
    }
    blind.set(id, { revealed: false, shown: null })
  }
  if (isResults(id)) renderBlindOffer(id)
  return false
}

/** Why the page cannot tell whether the run may still be judged blind, and a way to ask again. */
export function renderBlindStatusError(id: string, error: unknown) {
  byId("results-body").replaceChildren(h("div", { className: "blind-vote", id: "blind-status-error" },
    h("p", { className: "error", role: "alert", text: `Could not tell whether you can still judge run ${id} blind: ${messageOf(error)}` }),
    h("p", { className: "hint", text: "Its verdict stays hidden until this is known, so that a blind vote is not lost." }),
    h("div", { className: "actions" }, h("button", { type: "button", className: "primary", id: "blind-status-retry", text: "Retry", onClick: () => void openResults(id, false) }))))
  $("blind-status-retry")?.focus()
}

/** Tells the controller the user is about to see who is who (reveal_run); a blind vote on the run ends here. */
export async function markRevealed(id: string, refusal: string | null) {
  try {
    const result = await callTool("reveal_run", { run_id: id })
    blind.set(id, { revealed: true, vote: result.vote, note: result.vote === null ? refusal : null })
  } catch {
    blind.set(id, { revealed: true, vote: null, note: refusal })
  }
}

export async function skipAndReveal(id: string) {
  await markRevealed(id, null)
  if (isResults(id)) await showRevealed(id)
}

export const blindActions = (id: string, ...buttons: ReadonlyArray<HTMLElement>) => h("div", { className: "actions" }, ...buttons,
  h("button", { type: "button", className: "secondary", id: "skip-reveal", text: "Skip and reveal", onClick: () => void skipAndReveal(id) }))

export function renderBlindOffer(id: string) {
  byId("results-body").replaceChildren(h("div", { className: "blind-vote", id: "blind-offer" },
    h("h3", { text: "Judge it yourself before the reveal?" }),
    h("p", { text: "The replay is complete. Before you see who wrote which result, you can judge the two candidates the reviewer saw: their diffs, final answers and check outcomes, without their authors, in a random order. Your vote is stored with the run and shown beside the judge's verdict." }),
    h("p", { className: "hint", text: "Once you have seen the verdict, a blind vote on this run is no longer possible." }),
    h("p", { className: "error", id: "blind-error", role: "alert", hidden: true }),
    blindActions(id, h("button", { type: "button", className: "primary", id: "judge-yourself", text: "Judge it yourself", onClick: () => void judgeYourself(id) }))))
  $("judge-yourself")?.focus()
}

/** A fresh blind presentation (a new random order each time), then the ballot. */
export async function judgeYourself(id: string) {
  try {
    blind.set(id, { revealed: false, shown: await callTool("blind_candidates", { run_id: id }) })
  } catch (error) {
    const line = $("blind-error")
    if (line !== null) {
      line.hidden = false
      line.textContent = messageOf(error)
    }
    return
  }
  if (isResults(id)) renderBlindBallot(id)
}

const checkWord = (value: unknown) => (typeof value === "string" || typeof value === "number" ? String(value) : "")

export function blindCandidateColumn(candidate: BlindCandidatesResult["candidates"][number]): HTMLElement {
  const title = candidate.label === "first" ? "First candidate" : "Second candidate"
  return h("div", { className: "blind-candidate", "data-label": candidate.label },
    h("h4", { text: title }),
    h("p", { className: "muted", text: `Changed files: ${candidate.changed_files.map((f) => `${f.path} (+${f.additions}/−${f.deletions})`).join(", ") || "none"}` }),
    h("h5", { text: "Final answer" }), renderMarkdown(candidate.final_response),
    candidate.checks.length === 0 ? null : [h("h5", { text: "Check outcomes" }), h("ul", { className: "blind-checks" }, candidate.checks.map((check) => {
      const exit = check["exit_code"]
      const change = checkWord(check["change_from_start"])
      return h("li", {}, h("code", { text: visibleText(checkWord(check["command"])) }),
        `: ${checkWord(check["outcome"]) || "—"}${typeof exit === "number" ? ` (exit ${exit})` : ""}${change ? `, ${change}` : ""}`)
    }))],
    h("h5", { text: "Diff" }), renderDiff(candidate.patch, `${title} diff`))
}

export function voteChoice(name: string, legend: string): HTMLElement {
  return h("fieldset", { className: "vote-choice", "data-vote": name }, h("legend", { text: legend }),
    VOTE_CHOICES.map(([value, label]) => h("label", {}, h("input", { type: "radio", name: `vote-${name}`, value }), ` ${label}`)))
}

export function renderBlindBallot(id: string) {
  const state = blind.get(id)
  const shown = state?.revealed === false ? state.shown : null
  if (shown === null) return
  const error = h("p", { className: "error", id: "vote-error", role: "alert", hidden: true })
  const form = h("form", { className: "vote-form", id: "vote-form" },
    h("p", { className: "hint", text: "For each dimension and overall: which candidate is better, or a tie." }),
    shown.dimensions.map((dimension) => voteChoice(dimension.id, dimension.label)),
    voteChoice("overall", "Overall"),
    error,
    blindActions(id, h("button", { type: "submit", className: "primary", id: "submit-vote", text: "Submit my vote" })))
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    void submitBlindVote(id, shown, form, error)
  })
  const body = byId("results-body")
  body.replaceChildren(h("div", { className: "blind-vote", id: "blind-ballot" },
    h("h3", { text: "Judge it yourself" }),
    section("Task", h("pre", { className: "response", tabindex: "0", "aria-label": "Task", text: shown.task })),
    h("div", { className: "side-by-side blind-candidates" }, shown.candidates.map(blindCandidateColumn)),
    form))
  labelScrollRegions(body)
}

const CHOICES = new Set(["first", "second", "tie"])
type Choice = "first" | "second" | "tie"
const isChoice = (value: string): value is Choice => CHOICES.has(value)

export async function submitBlindVote(id: string, shown: BlindCandidatesResult, form: HTMLFormElement, error: HTMLElement) {
  const choice = (name: string): Choice | null => {
    const checked = form.querySelector<HTMLInputElement>(`input[name="vote-${name}"]:checked`)
    return checked !== null && isChoice(checked.value) ? checked.value : null
  }
  const overall = choice("overall")
  const reliability = choice("reliability")
  const code_quality = choice("code_quality")
  const request_fulfillment = choice("request_fulfillment")
  const change_scope = choice("change_scope")
  const safe_operations = choice("safe_operations")
  const accurate_reporting = choice("accurate_reporting")
  if (
    overall === null || reliability === null || code_quality === null || request_fulfillment === null || change_scope === null ||
    safe_operations === null || accurate_reporting === null
  ) {
    error.hidden = false
    error.textContent = "Choose first, second or tie for every dimension and overall."
    return
  }
  const dimensions = { reliability, code_quality, request_fulfillment, change_scope, safe_operations, accurate_reporting }
  const submit = byId("submit-vote")
  if (submit instanceof HTMLButtonElement) submit.disabled = true
  try {
    await callTool("submit_vote", { run_id: id, ballot_token: shown.ballot_token, dimensions, overall })
  } catch (failure) {
    if (submit instanceof HTMLButtonElement) submit.disabled = false
    error.hidden = false
    error.textContent = messageOf(failure)
    return
  }
  await markRevealed(id, null)
  if (isResults(id)) await showRevealed(id)
}

const dimensionWinner = (report: ReplayReport, id: string): string | null => {
  const dimensions = read(report.evaluation, "dimensions")
  const entry = typeof dimensions === "object" && dimensions !== null ? Reflect.get(dimensions, id) : null
  const winner = typeof entry === "object" && entry !== null ? Reflect.get(entry, "winner") : null
  return typeof winner === "string" ? winner : null
}

/** The user's vote beside the judge's verdict, or why there is none; nothing for a run the user skipped. */
export function yourVoteSection(id: string, report: ReplayReport, dimensionRows: ReadonlyArray<{ readonly id: string; readonly label: string }>): HTMLElement | null {
  const state = blind.get(id)
  if (state === undefined || state.revealed === false) return null
  if (state.vote === null) return state.note === null ? null : h("p", { className: "muted", id: "blind-note", text: state.note })
  const vote = state.vote
  // A judge that reached no verdict has nothing to agree with (docs/verdicts.md); a tie is a tie only when the winner says so.
  const noVerdict = report.winner === "inconclusive" || (report.caveats ?? []).some((caveat) => caveat.kind === "no_verdict")
  const agreement = noVerdict ? "The judge reached no verdict, so there is nothing to agree on." : report.winner === vote.overall ? "You agree on the winner." : "You and the judge disagree on the winner."
  const votedDimensions: Readonly<Record<string, string>> = vote.dimensions
  return section("Your blind vote beside the judge's",
    h("p", { id: "vote-agreement", text: `You voted ${VOTED[vote.overall] ?? vote.overall} overall; the judge: ${reportVerdictText(report)}. ${agreement}` }),
    h("div", { className: "table-scroll" }, h("table", { className: "vote-table", id: "vote-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Dimension" }), h("th", { scope: "col", text: "The judge" }), h("th", { scope: "col", text: "You" }))),
      h("tbody", {},
        dimensionRows.map((dimension) => h("tr", {}, h("th", { scope: "row", text: dimension.label }),
          h("td", { text: winnerText(dimensionWinner(report, dimension.id)) }),
          h("td", { text: VOTED[votedDimensions[dimension.id] ?? ""] ?? "—" }))),
        h("tr", {}, h("th", { scope: "row", text: "Overall" }), h("td", { text: reportVerdictText(report) }), h("td", { text: VOTED[vote.overall] ?? "—" }))))))
}
