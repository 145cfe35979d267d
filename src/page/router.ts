/**
 * The page's addresses: each view has one, so a reload keeps the view, Back works, and a link can be shared.
 * `/threads/<id>[?range_start=&range_end=]` is Configure of that thread (or of that part of it), `/runs/<id>`
 * that run (its Results once reported, else its Run view), `/batches/<id>` the batch view, and
 * `/runs?query=&status=&winner=` the Runs list with its filters. The daemon serves the page at each of them.
 */

/** The Runs list's filters, as its controls and `list_runs` name them. */
export interface RunsFilters {
  readonly query: string
  readonly status: string
  readonly winner: string
}

export type Address =
  | { readonly view: "home" }
  | { readonly view: "thread"; readonly threadId: string; readonly range: { readonly start: string; readonly end: string } | null }
  | { readonly view: "run"; readonly runId: string }
  | { readonly view: "batch"; readonly batchId: string }
  | { readonly view: "runs"; readonly filters: RunsFilters }

const HOME: Address = { view: "home" }
const FILTERS = ["query", "status", "winner"] as const

/** A path segment as the address holds it (a malformed escape is no address). */
const segment = (raw: string | undefined): string | undefined => {
  if (raw === undefined || raw === "") return undefined
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined
  }
}

/** The view an address names; anything else is the first step. */
export const parseAddress = (pathname: string, search: string): Address => {
  const parts = pathname.split("/").slice(1)
  const parameters = new URLSearchParams(search)
  const [kind, rawId, ...rest] = parts
  if (rest.length > 0) return HOME
  const id = segment(rawId)
  if (kind === "runs" && rawId === undefined) {
    const value = (name: (typeof FILTERS)[number]) => parameters.get(name) ?? ""
    return { view: "runs", filters: { query: value("query"), status: value("status"), winner: value("winner") } }
  }
  if (id === undefined) return HOME
  if (kind === "threads") {
    // A chunk's first and last prompt, by their message ids (as inspect_thread takes them).
    const start = parameters.get("range_start") ?? ""
    const end = parameters.get("range_end") ?? ""
    return { view: "thread", threadId: id, range: start !== "" && end !== "" ? { start, end } : null }
  }
  if (kind === "runs") return { view: "run", runId: id }
  if (kind === "batches") return { view: "batch", batchId: id }
  return HOME
}

/** The address of a view, path and query, as `parseAddress` reads it back. */
export const formatAddress = (address: Address): string => {
  switch (address.view) {
    case "home":
      return "/"
    case "thread": {
      const path = `/threads/${encodeURIComponent(address.threadId)}`
      if (address.range === null) return path
      return `${path}?${new URLSearchParams({ range_start: address.range.start, range_end: address.range.end }).toString()}`
    }
    case "run":
      return `/runs/${encodeURIComponent(address.runId)}`
    case "batch":
      return `/batches/${encodeURIComponent(address.batchId)}`
    case "runs": {
      const parameters = new URLSearchParams()
      for (const name of FILTERS) if (address.filters[name] !== "") parameters.set(name, address.filters[name])
      const query = parameters.toString()
      return query === "" ? "/runs" : `/runs?${query}`
    }
  }
}

/** The address the browser shows now. */
export const currentAddress = (): Address => parseAddress(location.pathname, location.search)

/**
 * Shows `address` in the address bar: a new history entry when the view changes (so Back returns to the
 * last one), the same entry when only its details change (a filter typed, a part of the thread chosen).
 */
export const showAddress = (address: Address, how: "push" | "replace") => {
  const target = formatAddress(address)
  if (target === `${location.pathname}${location.search}`) return
  if (how === "push") history.pushState(null, "", target)
  else history.replaceState(null, "", target)
}

/** Runs `open` with the address whenever the user goes Back or Forward. */
export const onAddressChange = (open: (address: Address) => void) => {
  window.addEventListener("popstate", () => open(currentAddress()))
}
