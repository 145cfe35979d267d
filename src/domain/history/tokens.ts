import { isBillableAssistant, messageOf, modelOf, type Origin, responseKey, type SessionEntry } from "./entries.js"
import { numberField, recordField, stringField } from "./json.js"
import { isLongContext, priceOf, responseCost, type TokenCounts } from "./pricing.js"

export const ZERO_TOKENS: TokenCounts = { input: 0, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output: 0 }

export const addTokens = (left: TokenCounts, right: TokenCounts): TokenCounts => ({
  input: left.input + right.input,
  cache_read: left.cache_read + right.cache_read,
  cache_write_5m: left.cache_write_5m + right.cache_write_5m,
  cache_write_1h: left.cache_write_1h + right.cache_write_1h,
  output: left.output + right.output
})

export const maxTokens = (left: TokenCounts, right: TokenCounts): TokenCounts => ({
  input: Math.max(left.input, right.input),
  cache_read: Math.max(left.cache_read, right.cache_read),
  cache_write_5m: Math.max(left.cache_write_5m, right.cache_write_5m),
  cache_write_1h: Math.max(left.cache_write_1h, right.cache_write_1h),
  output: Math.max(left.output, right.output)
})

/** One line's usage; without the 5m/1h split every cache write counts as a 5-minute write. */
export const lineTokens = (entry: SessionEntry): TokenCounts | undefined => {
  const usage = recordField(messageOf(entry), "usage")
  if (usage === undefined) return undefined
  const split = recordField(usage, "cache_creation")
  const cacheWrite = numberField(usage, "cache_creation_input_tokens") ?? 0
  const oneHour = numberField(split, "ephemeral_1h_input_tokens")
  const fiveMinutes = numberField(split, "ephemeral_5m_input_tokens")
  const splitKnown = oneHour !== undefined || fiveMinutes !== undefined
  return {
    input: numberField(usage, "input_tokens") ?? 0,
    cache_read: numberField(usage, "cache_read_input_tokens") ?? 0,
    cache_write_5m: splitKnown ? fiveMinutes ?? 0 : cacheWrite,
    cache_write_1h: splitKnown ? oneHour ?? 0 : 0,
    output: numberField(usage, "output_tokens") ?? 0
  }
}

export interface Response {
  readonly key: string
  readonly model: string
  readonly origin: Origin
  readonly fast: boolean
  readonly tokens: TokenCounts
}

/**
 * Groups the streamed lines of each API response by `message.id` and keeps the maximum of every usage
 * field (early lines carry partial output counts). Synthetic and API-error lines are not responses.
 * A response seen on the main chain and replayed in a sub-agent keeps its main-chain origin.
 */
export const collectResponses = (entries: ReadonlyArray<SessionEntry>): Array<Response> => {
  const responses = new Map<string, Response>()
  for (const entry of entries) {
    if (!isBillableAssistant(entry)) continue
    const tokens = lineTokens(entry)
    if (tokens === undefined) continue
    const key = responseKey(entry)
    const origin: Origin = entry.origin === "main" && entry.raw.isSidechain === true ? "subagent" : entry.origin
    const fast = stringField(recordField(messageOf(entry), "usage"), "speed") === "fast"
    const existing = responses.get(key)
    responses.set(key, existing === undefined
      ? { key, model: modelOf(entry) ?? "unknown", origin, fast, tokens }
      : {
        ...existing,
        origin: existing.origin === "main" || origin === "main" ? "main" : existing.origin,
        fast: existing.fast || fast,
        tokens: maxTokens(existing.tokens, tokens)
      })
  }
  return [...responses.values()]
}

export type TokenSource = "main" | "subagents" | "compaction" | "warmup"

export interface TokenReport {
  /** Every billed response: main chain, sub-agents, compaction and warm-up probes. */
  readonly tokens: TokenCounts
  readonly tokens_by_source: Record<TokenSource, TokenCounts>
  readonly tokens_by_model: Record<string, TokenCounts>
  readonly cost_usd: number | null
  /** The cost of each source (warm-up probes are billed calls, shown as their own line); null when unpriced. */
  readonly cost_by_source: Record<TokenSource, number | null>
  readonly cost_by_model: Record<string, number | null>
  readonly unpriced_models: ReadonlyArray<string>
  readonly responses: number
  /** Responses priced at their model's long-context rates (prompt above 200k tokens). */
  readonly long_context_responses: number
  /** Responses left out because an earlier session holds them (a resumed session's copied history). */
  readonly copied_responses: number
  /** Output per model without warm-up probes (copies included): what orders the thread's models. */
  readonly work_output_by_model: Record<string, number>
}

const SOURCE_OF: Record<Origin, TokenSource> = {
  main: "main",
  subagent: "subagents",
  compaction: "compaction",
  warmup: "warmup"
}

const roundUsd = (value: number) => Math.round(value * 1_000_000) / 1_000_000

interface Tally {
  readonly add: (response: Pick<Response, "key" | "model" | "origin" | "fast" | "tokens">) => void
  readonly report: () => TokenReport
}

/**
 * Sums responses into a report. A response whose key is in `copied` belongs to an earlier session (resumed
 * sessions repeat their predecessor's history) and is left out. Shared by the full parse and the listing.
 */
export const makeTally = (copied: ReadonlySet<string> = new Set()): Tally => {
  const bySource: Record<TokenSource, TokenCounts> = {
    main: ZERO_TOKENS,
    subagents: ZERO_TOKENS,
    compaction: ZERO_TOKENS,
    warmup: ZERO_TOKENS
  }
  const costBySource: Record<TokenSource, number | null> = { main: 0, subagents: 0, compaction: 0, warmup: 0 }
  const byModel: Record<string, TokenCounts> = {}
  const costByModel: Record<string, number | null> = {}
  let total = ZERO_TOKENS
  let cost = 0
  let counted = 0
  let longContext = 0
  let skipped = 0
  const workOutput: Record<string, number> = {}
  const add: Tally["add"] = (response) => {
    if (response.origin !== "warmup") workOutput[response.model] = (workOutput[response.model] ?? 0) + response.tokens.output
    if (copied.has(response.key)) {
      skipped++
      return
    }
    const source = SOURCE_OF[response.origin]
    counted++
    bySource[source] = addTokens(bySource[source], response.tokens)
    total = addTokens(total, response.tokens)
    byModel[response.model] = addTokens(byModel[response.model] ?? ZERO_TOKENS, response.tokens)
    const price = priceOf(response.model)
    if (price === undefined) {
      costByModel[response.model] = null
      costBySource[source] = null
      return
    }
    if (isLongContext(price, response.tokens)) longContext++
    const responseUsd = responseCost(price, response.tokens, response.fast)
    cost += responseUsd
    costByModel[response.model] = (costByModel[response.model] ?? 0) + responseUsd
    const sourceUsd = costBySource[source]
    if (sourceUsd !== null) costBySource[source] = sourceUsd + responseUsd
  }
  const report = (): TokenReport => {
    const unpriced = Object.entries(costByModel).filter(([, value]) => value === null).map(([model]) => model)
    const rounded = (values: Record<string, number | null>) =>
      Object.fromEntries(Object.entries(values).map(([key, value]) => [key, value === null ? null : roundUsd(value)]))
    return {
      tokens: total,
      tokens_by_source: bySource,
      tokens_by_model: byModel,
      cost_usd: unpriced.length > 0 ? null : roundUsd(cost),
      cost_by_source: rounded(costBySource) as Record<TokenSource, number | null>,
      cost_by_model: rounded(costByModel),
      unpriced_models: unpriced,
      responses: counted,
      long_context_responses: longContext,
      copied_responses: skipped,
      work_output_by_model: workOutput
    }
  }
  return { add, report }
}

export const tokenReport = (entries: ReadonlyArray<SessionEntry>, copied?: ReadonlySet<string>): TokenReport => {
  const tally = makeTally(copied)
  for (const response of collectResponses(entries)) tally.add(response)
  return tally.report()
}
