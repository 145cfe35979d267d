import { Either } from "effect"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import {
  CODEX_PRICING_TABLE,
  codexCost,
  codexPriceOf,
  NOT_PRICED,
  parseCodexPricing
} from "../../src/domain/codexPricing.js"
import { parseModelCatalogue } from "../../src/domain/history/models.js"
import { tokensFromCodexUsage } from "../../src/domain/report/tokens.js"
import { fixturePath } from "../support/fixtures.js"

const CATALOGUE = fixturePath("codex-golden", "debug-models-0.171.0.json")
const FAKE_CODEX = fileURLToPath(new URL("../fake-codex/codex", import.meta.url))

/** Every slug of the captured 0.171.0 catalogue, hidden ones included, and every slug the fake CLI offers. */
const capturedSlugs = () =>
  (JSON.parse(fs.readFileSync(CATALOGUE, "utf8")) as { models: ReadonlyArray<{ slug: string }> }).models.map((model) => model.slug)
const fakeSlugs = () => [...fs.readFileSync(FAKE_CODEX, "utf8").matchAll(/model\("([^"]+)"/g)].map((match) => match[1]!)

const usage = { input: 1200, cached_input: 400, cache_write: 0, output: 300 }

describe("Codex pricing", () => {
  it("prices uncached input, cached input and output at their own rates (cached input is part of input_tokens)", () => {
    const tokens = tokensFromCodexUsage(usage)
    expect(tokens).toEqual({ ordinary_input: 800, cache_read: 400, cache_write: 0, output: 300 })
    const cost = codexCost("gpt-5.6-terra", tokens, {})
    // 800 × $2 + 400 × $0.20 + 300 × $12 per million.
    expect(cost.usd).toBeCloseTo((800 * 2 + 400 * 0.2 + 300 * 12) / 1_000_000, 12)
    expect(cost).toMatchObject({ reason: null, basis: "API equivalent (Codex pricing table of 2026-11-18)" })
  })

  it("has a price or the not-priced text for every model the captured catalogue and the fake CLI offer, never $0", () => {
    const slugs = [...new Set([...capturedSlugs(), ...fakeSlugs()])]
    expect(slugs.length).toBeGreaterThanOrEqual(14)
    const tokens = tokensFromCodexUsage(usage)
    const unpriced = slugs.filter((slug) => codexPriceOf(slug, {}) === undefined)
    expect(unpriced.sort()).toEqual(["codex-auto-review", "gpt-daybreak-blue-latest", "gpt-daybreak-red-latest"])
    for (const slug of slugs) {
      const cost = codexCost(slug, tokens, {})
      if (unpriced.includes(slug)) expect(cost).toEqual({ usd: null, reason: `${slug} is ${NOT_PRICED}.` })
      else expect(cost.usd).toBeGreaterThan(0)
    }
    // Every model a user can pick (the listed ones) is priced.
    const listed = parseModelCatalogue(fs.readFileSync(CATALOGUE, "utf8"))!.map((model) => model.id)
    expect(listed.filter((slug) => CODEX_PRICING_TABLE[slug] === undefined)).toEqual([])
  })

  it("lets the override file win over the table and price a model the table lacks", () => {
    const overrides = Either.getOrThrow(parseCodexPricing(
      JSON.stringify({
        models: {
          "gpt-5.6-terra": { input_per_million: 1, cached_input_per_million: 0.1, output_per_million: 4 },
          "codex-auto-review": { input_per_million: 0, cached_input_per_million: 0, output_per_million: 0 }
        }
      }),
      "/p.json"
    ))
    const tokens = tokensFromCodexUsage(usage)
    expect(codexCost("gpt-5.6-terra", tokens, overrides)).toEqual({
      usd: (800 * 1 + 400 * 0.1 + 300 * 4) / 1_000_000,
      reason: null,
      basis: "API equivalent (CODEX_REPLAY_PRICING)"
    })
    expect(codexCost("codex-auto-review", tokens, overrides)).toMatchObject({ usd: 0, reason: null })
    expect(codexCost("gpt-5.5", tokens, overrides).usd).toBeCloseTo((800 * 5 + 400 * 0.5 + 300 * 30) / 1_000_000, 12)
    // Inherited object keys are not models.
    expect(codexPriceOf("constructor", overrides)).toBeUndefined()
  })

  const malformed: Array<[string, string]> = [
    ["{", "CODEX_REPLAY_PRICING names /p.json, which is not valid JSON."],
    ["[]", 'CODEX_REPLAY_PRICING names /p.json, which must be a JSON object with a "models" object.'],
    ['{"models": []}', 'CODEX_REPLAY_PRICING names /p.json, which must be a JSON object with a "models" object.'],
    ['{"models": {"m": 2}}', 'CODEX_REPLAY_PRICING must give models["m"] as an object of three prices.'],
    [
      '{"models": {"m": {"input_per_million": 2, "output_per_million": 10}}}',
      'CODEX_REPLAY_PRICING must give models["m"].cached_input_per_million as a number of dollars per million tokens, zero or more.'
    ],
    [
      '{"models": {"m": {"input_per_million": -1, "cached_input_per_million": 0, "output_per_million": 1}}}',
      'CODEX_REPLAY_PRICING must give models["m"].input_per_million as a number of dollars per million tokens, zero or more.'
    ],
    [
      '{"models": {"m": {"input_per_million": "2", "cached_input_per_million": 0, "output_per_million": 1}}}',
      'CODEX_REPLAY_PRICING must give models["m"].input_per_million as a number of dollars per million tokens, zero or more.'
    ],
    [
      '{"models": {"m": {"input_per_million": 2, "cached_input_per_million": 0, "output_per_million": 1, "cache_write": 3}}}',
      'CODEX_REPLAY_PRICING has an unknown field "cache_write" in models["m"].'
    ],
    ['{"models": {" ": {}}}', "CODEX_REPLAY_PRICING has an empty model name in /p.json."],
    [`{"models": {}, "pad": "${"x".repeat(1024 * 1024)}"}`, "CODEX_REPLAY_PRICING names /p.json, which is larger than 1 MiB."]
  ]
  it.each(malformed)("refuses %# with one sentence naming the variable", (text, message) => {
    const outcome = parseCodexPricing(text, "/p.json")
    expect(Either.isLeft(outcome) && outcome.left.message).toBe(message)
  })
})
