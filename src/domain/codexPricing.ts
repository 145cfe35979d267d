import { Either } from "effect"
import { type ControllerError, invalidArgument } from "./errors.js"
import type { Cost } from "./report/report.js"
import type { TokenBuckets } from "./report/tokens.js"
import { utf8Length } from "./utf8.js"

/** Dollars per million tokens; cached input is the part of the input read from the provider's cache. */
export interface CodexPrice {
  readonly input_per_million: number
  readonly cached_input_per_million: number
  readonly output_per_million: number
}

export type CodexPriceTable = Readonly<Record<string, CodexPrice>>

/** The variable naming a JSON file of prices that take precedence over the table below. */
export const CODEX_PRICING_VARIABLE = "CODEX_REPLAY_PRICING"

/**
 * OpenAI API list prices (Standard tier, prompts up to 272K input tokens) for the models of Codex CLI
 * 0.171.0's catalogue (`codex debug models`), as of 2026-11-18.
 *
 * Sources: developers.openai.com/api/docs/models (input and output prices of gpt-6.2-astra, gpt-6.2-sol,
 * gpt-6.1-terra, gpt-6-astra and the gpt-5.6 family as listed there), the per-model pages
 * developers.openai.com/api/docs/models/<slug> for the cached-input rates, read through the dated notes
 * of pricing trackers that quote them (LiteLLM discussions #42523 and #52347, codexometer v0.18.4,
 * CodexManager 0.4.7, PromptFuel v1.0.19 and v1.0.24). gpt-6.2-astra's cached input ($0.40) is
 * "60% cheaper" than gpt-6-astra's $1, as its release notes put it; gpt-6.2-sol keeps gpt-6.1-sol's prices.
 *
 * Not priced here, because OpenAI publishes no API price for them: `gpt-daybreak-blue-latest`,
 * `gpt-daybreak-red-latest` and `codex-auto-review` (hidden catalogue entries, not API models). A run of
 * any model missing from this table says "not priced — add it to CODEX_REPLAY_PRICING", never $0.
 *
 * Not modelled: the long-context rate (2× input, 1.5× output for a whole request above 272K input
 * tokens) — Codex reports usage summed over a thread's requests, so one request's size is not known —
 * and the Fast, Batch and Flex tiers. Codex's cache-write tokens are priced as ordinary input.
 */
export const CODEX_PRICING_VERSION = "2026-11-18"

export const CODEX_PRICING_TABLE: CodexPriceTable = {
  "gpt-6.2-astra": { input_per_million: 8, cached_input_per_million: 0.4, output_per_million: 40 },
  "gpt-6.2-sol": { input_per_million: 2, cached_input_per_million: 0.1, output_per_million: 10 },
  "gpt-6.1-sol": { input_per_million: 2, cached_input_per_million: 0.1, output_per_million: 10 },
  "gpt-6.1-terra": { input_per_million: 1, cached_input_per_million: 0.05, output_per_million: 5 },
  "gpt-6-astra": { input_per_million: 10, cached_input_per_million: 1, output_per_million: 50 },
  "gpt-6-sol": { input_per_million: 2, cached_input_per_million: 0.2, output_per_million: 10 },
  "gpt-6-luna": { input_per_million: 0.1, cached_input_per_million: 0.01, output_per_million: 0.5 },
  "gpt-5.6-sol": { input_per_million: 4, cached_input_per_million: 0.4, output_per_million: 20 },
  "gpt-5.6-terra": { input_per_million: 2, cached_input_per_million: 0.2, output_per_million: 12 },
  "gpt-5.6-luna": { input_per_million: 0.2, cached_input_per_million: 0.02, output_per_million: 1.2 },
  "gpt-5.5": { input_per_million: 5, cached_input_per_million: 0.5, output_per_million: 30 }
}

export const NOT_PRICED = "not priced — add it to CODEX_REPLAY_PRICING"

/** What the report says about the Codex figure (README.md#cost, cost). */
export const CODEX_COST_NOTE =
  "The Codex cost is the API equivalent: its tokens priced at OpenAI's per-token API rates. A ChatGPT-plan user is not billed per token for Codex, so this is not what such a user pays."

const MAX_PRICING_BYTES = 1024 * 1024
const RATE_FIELDS = ["input_per_million", "cached_input_per_million", "output_per_million"] as const

const invalid = (detail: string) => Either.left(invalidArgument(`${CODEX_PRICING_VARIABLE} ${detail}`))

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const priceEntry = (model: string, entry: unknown): Either.Either<CodexPrice, ControllerError> => {
  const where = `models[${JSON.stringify(model.slice(0, 100))}]`
  if (!isObject(entry)) return invalid(`must give ${where} as an object of three prices.`)
  const unknown = Object.keys(entry).find((key) => !(RATE_FIELDS as ReadonlyArray<string>).includes(key))
  if (unknown !== undefined) return invalid(`has an unknown field ${JSON.stringify(unknown.slice(0, 60))} in ${where}.`)
  for (const field of RATE_FIELDS) {
    const value = entry[field]
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      return invalid(`must give ${where}.${field} as a number of dollars per million tokens, zero or more.`)
    }
  }
  return Either.right({
    input_per_million: entry.input_per_million as number,
    cached_input_per_million: entry.cached_input_per_million as number,
    output_per_million: entry.output_per_million as number
  })
}

/**
 * Validates the text of the `CODEX_REPLAY_PRICING` file: `{"models": {"<model>": {"input_per_million": 2,
 * "cached_input_per_million": 0.2, "output_per_million": 10}}}`. Every message is one sentence naming the variable.
 */
export const parseCodexPricing = (text: string, file: string): Either.Either<CodexPriceTable, ControllerError> => {
  if (utf8Length(text) > MAX_PRICING_BYTES) return invalid(`names ${file}, which is larger than 1 MiB.`)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return invalid(`names ${file}, which is not valid JSON.`)
  }
  if (!isObject(parsed) || !isObject(parsed.models)) {
    return invalid(`names ${file}, which must be a JSON object with a "models" object.`)
  }
  const prices: Record<string, CodexPrice> = {}
  for (const [model, entry] of Object.entries(parsed.models)) {
    if (model.trim() === "") return invalid(`has an empty model name in ${file}.`)
    const price = priceEntry(model, entry)
    if (Either.isLeft(price)) return Either.left(price.left)
    prices[model] = price.right
  }
  return Either.right(prices)
}

/** The price of a model: the override file first, then the table. */
export const codexPriceOf = (model: string, overrides: CodexPriceTable): { readonly price: CodexPrice; readonly source: string } | undefined => {
  const override = Object.hasOwn(overrides, model) ? overrides[model] : undefined
  if (override !== undefined) return { price: override, source: CODEX_PRICING_VARIABLE }
  const listed = Object.hasOwn(CODEX_PRICING_TABLE, model) ? CODEX_PRICING_TABLE[model] : undefined
  return listed === undefined ? undefined : { price: listed, source: `Codex pricing table of ${CODEX_PRICING_VERSION}` }
}

/**
 * A Codex run's API-equivalent cost: uncached input × input rate + cached input × cached rate +
 * output × output rate (Codex counts cached input inside `input_tokens`; the buckets already split it).
 */
export const codexCost = (model: string, tokens: TokenBuckets, overrides: CodexPriceTable): Cost => {
  const priced = codexPriceOf(model, overrides)
  if (priced === undefined) return { usd: null, reason: `${model} is ${NOT_PRICED}.` }
  const { price } = priced
  const usd = ((tokens.ordinary_input + tokens.cache_write) * price.input_per_million +
    tokens.cache_read * price.cached_input_per_million +
    tokens.output * price.output_per_million) / 1_000_000
  return { usd, reason: null, basis: `API equivalent (${priced.source})` }
}
