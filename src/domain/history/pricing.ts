/**
 * API list prices in USD per million tokens, by model family (platform.claude.com pricing, as recorded in
 * the transcript reference). Cache writes cost 1.25× input (5-minute) or 2× (1-hour); cache reads 0.1×.
 * Model ids are matched after removing a trailing `-YYYYMMDD` date; anything else is unknown, never $0.
 */
export interface ModelPrice {
  readonly input: number
  readonly output: number
  /** Multiplier for `usage.speed == "fast"`, where the model offers a fast mode. */
  readonly fast?: number
}

export const PRICING_TABLE: Readonly<Record<string, ModelPrice>> = {
  "claude-opus-4-7": { input: 5, output: 25 },
  "claude-opus-4-6": { input: 5, output: 25, fast: 6 },
  "claude-opus-4-5": { input: 5, output: 25 },
  "claude-opus-4-1": { input: 15, output: 75 },
  "claude-opus-4-0": { input: 15, output: 75 },
  "claude-opus-4": { input: 15, output: 75 },
  "claude-3-opus": { input: 15, output: 75 },
  "claude-sonnet-4-6": { input: 3, output: 15 },
  "claude-sonnet-4-5": { input: 3, output: 15 },
  "claude-sonnet-4-0": { input: 3, output: 15 },
  "claude-sonnet-4": { input: 3, output: 15 },
  "claude-3-7-sonnet": { input: 3, output: 15 },
  "claude-3-5-sonnet": { input: 3, output: 15 },
  "claude-haiku-4-5": { input: 1, output: 5 },
  "claude-3-5-haiku": { input: 0.8, output: 4 },
  "claude-3-haiku": { input: 0.25, output: 1.25 }
}

export const CACHE_WRITE_5M_MULTIPLIER = 1.25
export const CACHE_WRITE_1H_MULTIPLIER = 2
export const CACHE_READ_MULTIPLIER = 0.1

/** `claude-sonnet-4-20250514` → `claude-sonnet-4`; `anthropic/claude-…` and `[1m]` suffixes are ignored. */
export const modelFamily = (model: string) =>
  model.trim().toLowerCase().replace(/^anthropic[/.]/, "").replace(/\[[^\]]*\]$/, "").replace(/-\d{8}$/, "")

export const priceOf = (model: string): ModelPrice | undefined => PRICING_TABLE[modelFamily(model)]

export interface TokenCounts {
  readonly input: number
  readonly cache_read: number
  readonly cache_write_5m: number
  readonly cache_write_1h: number
  readonly output: number
}

/** The API-equivalent cost of one response, in USD. */
export const responseCost = (price: ModelPrice, tokens: TokenCounts, fast: boolean) => {
  const perToken = (perMillion: number) => perMillion / 1_000_000
  const cost = tokens.input * perToken(price.input) +
    tokens.cache_write_5m * perToken(price.input) * CACHE_WRITE_5M_MULTIPLIER +
    tokens.cache_write_1h * perToken(price.input) * CACHE_WRITE_1H_MULTIPLIER +
    tokens.cache_read * perToken(price.input) * CACHE_READ_MULTIPLIER +
    tokens.output * perToken(price.output)
  return fast && price.fast !== undefined ? cost * price.fast : cost
}
