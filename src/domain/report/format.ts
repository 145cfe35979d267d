/** Formatting helpers shared by the report renderers; every function is pure. */

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;"
}

/** Escapes text for HTML element content and quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character)

/** A share as a whole percentage: 2/3 → `67%`; `null` → `N/A`. */
export const formatPercent = (share: number | null | undefined): string =>
  typeof share === "number" && Number.isFinite(share) ? `${Math.round(share * 100)}%` : "N/A"

export const formatInteger = (value: number): string => Math.round(value).toLocaleString("en-US")

/** Elapsed milliseconds as `850 ms`, `12.3 s`, `3 min 05 s` or `1 h 02 min`. */
export const formatElapsed = (milliseconds: number | null): string => {
  if (milliseconds === null || !Number.isFinite(milliseconds) || milliseconds < 0) return "Not available"
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`
  const seconds = milliseconds / 1000
  if (seconds < 60) return `${seconds.toFixed(1)} s`
  const wholeSeconds = Math.round(seconds)
  const minutes = Math.floor(wholeSeconds / 60)
  if (minutes < 60) return `${minutes} min ${String(wholeSeconds % 60).padStart(2, "0")} s`
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`
}

/** US dollars with enough digits to tell small costs apart; nothing spent reads "$0.00", not "$0.0000". */
export const formatUsd = (usd: number): string =>
  `$${usd === 0 ? "0.00" : usd >= 1 ? usd.toFixed(2) : usd >= 0.01 ? usd.toFixed(3) : usd.toFixed(4)}`

export type Comparison = "better" | "worse" | "same" | "unknown"

/** For a lower-is-better metric: how `value` compares with `other`. */
export const compareLowerIsBetter = (value: number | null | undefined, other: number | null | undefined): Comparison => {
  if (typeof value !== "number" || typeof other !== "number" || !Number.isFinite(value) || !Number.isFinite(other)) {
    return "unknown"
  }
  return value < other ? "better" : value > other ? "worse" : "same"
}

/** A thread id beside its title: a UUID by its first 8 characters (any unique prefix names it), another id whole. */
export const shortThreadId = (id: string) => (/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(id) ? id.slice(0, 8) : id)
