/**
 * `since` and `until` (`threads`, `runs`, `list_threads`, `list_runs`): calendar days as ccusage takes them,
 * `YYYY-MM-DD` or `YYYYMMDD`, both ends included, compared with the local day of a thread's or run's start.
 */
import { Either, Schema } from "effect"

const DAY = /^(\d{4})-?(\d{2})-?(\d{2})$/

/** `2026-12-03` or `20261203` as `2026-12-03`, or undefined when it is not a real calendar day. */
export const dayOf = (raw: string): string | undefined => {
  const match = DAY.exec(raw.trim())
  if (match === null) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined
  return `${match[1]}-${match[2]}-${match[3]}`
}

/** A day as the `since`/`until` arguments take it; anything else is refused in one sentence naming the field. */
export const dayField = (field: "since" | "until") =>
  Schema.String.pipe(
    Schema.filter((value) => dayOf(value) !== undefined, {
      message: () => `${field} must be a day as YYYY-MM-DD or YYYYMMDD.`
    })
  )

/** The `since`/`until` fields of a listing's arguments. */
export const DateRangeFields = {
  since: Schema.optional(dayField("since")),
  until: Schema.optional(dayField("until"))
}

const pad = (value: number) => String(value).padStart(2, "0")

/** The local calendar day of an ISO timestamp, as `2026-12-03`; undefined for a missing or unreadable one. */
export const localDay = (iso: string | null | undefined): string | undefined => {
  if (typeof iso !== "string") return undefined
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return undefined
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

/** The local minute of an ISO timestamp, as `2026-12-03 14:05`; "-" for a missing one. */
export const localMinute = (iso: string | null | undefined): string => {
  const day = localDay(iso)
  if (day === undefined) return "-"
  const date = new Date(iso!)
  return `${day} ${pad(date.getHours())}:${pad(date.getMinutes())}`
}

export interface DateRange {
  readonly since?: string | undefined
  readonly until?: string | undefined
}

/** The range of the given days, checked: a bad day or an end before the start is one sentence. */
export const dateRangeOf = (given: DateRange, flag = (field: string) => `--${field}`): Either.Either<DateRange, string> => {
  const since = given.since === undefined ? undefined : dayOf(given.since)
  const until = given.until === undefined ? undefined : dayOf(given.until)
  if (given.since !== undefined && since === undefined) {
    return Either.left(`${flag("since")} must be a day as YYYY-MM-DD or YYYYMMDD (got ${JSON.stringify(given.since.slice(0, 40))}).`)
  }
  if (given.until !== undefined && until === undefined) {
    return Either.left(`${flag("until")} must be a day as YYYY-MM-DD or YYYYMMDD (got ${JSON.stringify(given.until.slice(0, 40))}).`)
  }
  if (since !== undefined && until !== undefined && until < since) {
    return Either.left(`${flag("until")} ${until} is before ${flag("since")} ${since}; nothing is in that range.`)
  }
  return Either.right({ since, until })
}

/** Whether a start falls in the range; a start that is unknown falls only in an open range. */
export const inDateRange = (iso: string | null | undefined, range: DateRange) => {
  if (range.since === undefined && range.until === undefined) return true
  const day = localDay(iso)
  if (day === undefined) return false
  const since = range.since === undefined ? undefined : dayOf(range.since)
  const until = range.until === undefined ? undefined : dayOf(range.until)
  return (since === undefined || day >= since) && (until === undefined || day <= until)
}
