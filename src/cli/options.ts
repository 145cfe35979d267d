import * as Options from "@effect/cli/Options"
import { Effect } from "effect"

/**
 * Each command loads its own modules when it runs: `threads` (answered from the thread index in a moment)
 * does not pay for loading the controller and the run engine.
 */
export const lazily = <A, E, R>(load: () => Promise<Effect.Effect<A, E, R>>) => Effect.flatten(Effect.promise(load))

export const json = Options.boolean("json").pipe(Options.withDescription("Print machine-readable JSON only on stdout."))

/** A whole number as given, or NaN for anything else, so the command answers with its own range message. */
export const integerOf = (raw: string) => (/^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN)

/** A whole-number option; anything else becomes NaN so the command answers with its own range message. */
export const wholeNumber = (name: string, description: string, fallback: number) =>
  Options.text(name).pipe(
    Options.withPseudoName("integer"),
    Options.withDescription(description),
    Options.map(integerOf),
    Options.withDefault(fallback)
  )

/** `--since` / `--until`: a day as YYYY-MM-DD or YYYYMMDD, checked by the command (one sentence for a bad one). */
export const dayOption = (name: "since" | "until", description: string) =>
  Options.text(name).pipe(Options.withPseudoName("YYYY-MM-DD"), Options.withDescription(description), Options.optional)
