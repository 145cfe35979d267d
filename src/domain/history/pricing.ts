/**
 * API list prices in USD per million tokens, by model family (platform.claude.com pricing, as recorded in
 * the transcript reference). Cache writes cost 1.25× input (5-minute) or 2× (1-hour); cache reads 0.1×.
 * Model ids are matched after removing a trailing `-YYYYMMDD` date and the Bedrock/Vertex decorations;
 * anything else is unknown, never $0.
 */
export interface ModelPrice {
  readonly input: number
  readonly output: number
  /** Multiplier for `usage.speed == "fast"`, where the model offers a fast mode. */
  readonly fast?: number
  /**
   * The 1M-context rates: a request whose prompt (input + cache reads + cache writes) exceeds
   * LONG_CONTEXT_THRESHOLD tokens is billed at these for the whole request (cache multipliers apply on top).
   */
  readonly longContext?: { readonly input: number; readonly output: number }
}

export const LONG_CONTEXT_THRESHOLD = 200_000
/** Sonnet 4.x with the 1M-context window: $6 / $22.50 above 200k (the LiteLLM data ccusage embeds). */
const SONNET_LONG_CONTEXT = { input: 6, output: 22.5 }
/** Opus 4.6 with the 1M-context window: $10 / $37.50 above 200k (platform.claude.com pricing, 2026). */
const OPUS_4_6_LONG_CONTEXT = { input: 10, output: 37.5 }

export const PRICING_TABLE: Readonly<Record<string, ModelPrice>> = {
  "claude-opus-4-7": { input: 5, output: 25 },
  "claude-opus-4-6": { input: 5, output: 25, fast: 6, longContext: OPUS_4_6_LONG_CONTEXT },
  "claude-opus-4-5": { input: 5, output: 25 },
  "claude-opus-4-1": { input: 15, output: 75 },
  "claude-opus-4-0": { input: 15, output: 75 },
  "claude-opus-4": { input: 15, output: 75 },
  "claude-3-opus": { input: 15, output: 75 },
  "claude-sonnet-4-6": { input: 3, output: 15, longContext: SONNET_LONG_CONTEXT },
  "claude-sonnet-4-5": { input: 3, output: 15, longContext: SONNET_LONG_CONTEXT },
  "claude-sonnet-4-0": { input: 3, output: 15, longContext: SONNET_LONG_CONTEXT },
  "claude-sonnet-4": { input: 3, output: 15, longContext: SONNET_LONG_CONTEXT },
  "claude-3-7-sonnet": { input: 3, output: 15 },
  "claude-3-5-sonnet": { input: 3, output: 15 },
  "claude-haiku-4-5": { input: 1, output: 5 },
  "claude-3-5-haiku": { input: 0.8, output: 4 },
  "claude-3-haiku": { input: 0.25, output: 1.25 }
}

export const CACHE_WRITE_5M_MULTIPLIER = 1.25
export const CACHE_WRITE_1H_MULTIPLIER = 2
export const CACHE_READ_MULTIPLIER = 0.1

/**
 * `claude-sonnet-4-20250514` → `claude-sonnet-4`. Also ignored: `anthropic/` and `[1m]`; Bedrock's region
 * prefix and version suffix (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`); Vertex's `@date` and the `-v2`
 * of `claude-3-5-sonnet-v2@20241022`.
 */
export const modelFamily = (model: string) =>
  model.trim().toLowerCase()
    .replace(/^(?:(?:us|eu|apac|au|jp|global|us-gov)\.)?anthropic[/.]/, "")
    .replace(/\[[^\]]*\]$/, "")
    .replace(/-v\d+(?::\d+)?$/, "")
    .replace(/@\d{8}$/, "")
    .replace(/-\d{8}$/, "")
    .replace(/-v\d+$/, "")

export const priceOf = (model: string): ModelPrice | undefined => PRICING_TABLE[modelFamily(model)]

export interface TokenCounts {
  readonly input: number
  readonly cache_read: number
  readonly cache_write_5m: number
  readonly cache_write_1h: number
  readonly output: number
}

export const promptTokens = (tokens: TokenCounts) =>
  tokens.input + tokens.cache_read + tokens.cache_write_5m + tokens.cache_write_1h

/** Whether a response is billed at its model's long-context rates (for the whole request, as Anthropic bills). */
export const isLongContext = (price: ModelPrice, tokens: TokenCounts) =>
  price.longContext !== undefined && promptTokens(tokens) > LONG_CONTEXT_THRESHOLD

/** The API-equivalent cost of one response, in USD. */
export const responseCost = (price: ModelPrice, tokens: TokenCounts, fast: boolean) => {
  const perToken = (perMillion: number) => perMillion / 1_000_000
  const rates = isLongContext(price, tokens) ? price.longContext! : price
  const cost = tokens.input * perToken(rates.input) +
    tokens.cache_write_5m * perToken(rates.input) * CACHE_WRITE_5M_MULTIPLIER +
    tokens.cache_write_1h * perToken(rates.input) * CACHE_WRITE_1H_MULTIPLIER +
    tokens.cache_read * perToken(rates.input) * CACHE_READ_MULTIPLIER +
    tokens.output * perToken(rates.output)
  return fast && price.fast !== undefined ? cost * price.fast : cost
}
