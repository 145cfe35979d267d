import type { RepeatOutcomes } from "../contracts/index.js"
import { outcomeWord } from "../repeats.js"
import { escapeHtml } from "./format.js"

/**
 * The report's "Repeats" section: the k outcomes of its (thread, model) start, each linking to its run's
 * address on the controller's page; nothing for a run that is no repeat. `base` is the controller's origin
 * when known (a saved report then still links to it), else the links are relative to wherever the page is served.
 */
export const repeatsSection = (repeats: RepeatOutcomes | undefined, base = ""): string => {
  if (repeats === undefined) return ""
  const items = repeats.outcomes.map((outcome) =>
    `<li><a href="${escapeHtml(base + outcome.address)}">Repeat ${outcome.index}</a>: ${escapeHtml(outcomeWord(outcome))}</li>`
  )
  return `<section aria-labelledby="repeats-heading"><h2 id="repeats-heading">Repeats</h2><p>${escapeHtml(repeats.text)}</p><ol class="repeats">${items.join("")}</ol></section>`
}

const SECTION = /<section aria-labelledby="repeats-heading">[\s\S]*?<\/section>/

/** A report's HTML with its Repeats section replaced by `section`; a report without one is left as it is. */
export const withRepeatsSection = (html: string, section: string) => html.replace(SECTION, () => section)
