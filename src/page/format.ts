/**
 * The page's words for numbers, times and dates that the reports have no use for; percentages, durations,
 * integers and dollars are the reports' own (`src/domain/report/format.ts`), wrapped only where the page may
 * hold a value that is not a number yet.
 */
import { formatElapsed, formatInteger, formatPercent } from "../domain/report/format.js"

/** A share as a whole percentage, or `N/A` (the reports' words). */
export const percent = (share: unknown) => formatPercent(typeof share === "number" ? share : null)

/** A count with thousands separators, or `—` while there is none. */
export const integer = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? formatInteger(value) : "—")

/** Elapsed milliseconds as the reports say them (`12.3 s`, `3 min 05 s`), or `Not available`. */
export const formatDuration = (ms: unknown) => formatElapsed(typeof ms === "number" ? ms : null)

/** A share as a whole percentage, or `—` while there is none (the Runs view's portfolio lines). */
export const percentText = (share: number | null | undefined) => (share === null || share === undefined ? "—" : `${Math.round(share * 100)}%`)

/** The tokens of a thread's listing (input, cache reads and writes, output) in one figure. */
export const totalTokens = (tokens: { readonly [bucket: string]: number | undefined }) =>
  (tokens["input"] ?? 0) + (tokens["cache_read"] ?? 0) + (tokens["cache_write_5m"] ?? 0) + (tokens["cache_write_1h"] ?? 0) + (tokens["output"] ?? 0)

/** `1.2M`, `34k` or the count itself. */
export const formatTokenCount = (count: number) => {
  if (count >= 1e6) return `${(count / 1e6).toFixed(1)}M`
  if (count >= 1e3) return `${(count / 1e3).toFixed(0)}k`
  return String(count)
}

/** A date and time in the browser's words, or the text as it is when it is no date. */
export const formatDate = (iso: string | null | undefined) => {
  if (!iso) return ""
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
}

/** A time of day in the browser's words. */
export const formatTime = (iso: string | null | undefined) => {
  const date = new Date(iso ?? "")
  return Number.isNaN(date.getTime()) ? String(iso ?? "") : date.toLocaleTimeString()
}

/** A phase's clock, `m:ss`. */
export const clockText = (ms: number) => {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`
}
