/**
 * The page's own addresses (docs/controller.md, "Addresses"): `/threads/<thread id>`, `/runs/<run id>`,
 * `/batches/<batch id>` and `/runs`. The daemon answers each with the page itself, behind the same
 * cookie/token rule as `/`; the page's router decides what to show.
 */
import { BATCH_ID_PATTERN } from "../domain/contracts/index.js"
import { RUN_ID_PATTERN, THREAD_ID_PATTERN } from "../domain/ids.js"

const ADDRESS = /^\/(threads|runs|batches)\/([^/]+)$/

const ID_PATTERNS: Readonly<Record<string, RegExp>> = { threads: THREAD_ID_PATTERN, runs: RUN_ID_PATTERN, batches: BATCH_ID_PATTERN }

/**
 * Whether a request path (taken literally: no percent or dot-segment decoding) is one of the page's
 * addresses. An id must match its kind's pattern, so nothing like `..` or an encoded slash is one.
 */
export const isPageAddress = (pathname: string): boolean => {
  if (pathname === "/runs") return true
  const match = ADDRESS.exec(pathname)
  return match !== null && ID_PATTERNS[match[1]!]!.test(match[2]!)
}

/**
 * The address a `?token=` request is sent on to once the cookie is set: the same path and query
 * without the token. `pathname` must be `/`, `/index.html` or a page address (never a `//host`).
 */
export const addressWithoutToken = (pathname: string, target: string): string => {
  const query = target.indexOf("?")
  const params = new URLSearchParams(query === -1 ? "" : target.slice(query + 1))
  params.delete("token")
  const rest = params.toString()
  return rest === "" ? pathname : `${pathname}?${rest}`
}

const PORTFOLIO_ADDRESS = /^\/portfolios\/(portfolio-[0-9TZ]+-[0-9a-f]{10})$/

/**
 * The portfolio id of `/portfolios/<portfolio id>` (taken literally, as `isPageAddress` does), or undefined:
 * that address serves the portfolio's own self-contained page, not the app.
 */
export const portfolioOfAddress = (pathname: string): string | undefined => PORTFOLIO_ADDRESS.exec(pathname)?.[1]
