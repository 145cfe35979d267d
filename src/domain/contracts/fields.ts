/** What the payload contracts share: their field Schemas, and how a refused value is quoted. */
import { Schema } from "effect"
import { sentence } from "../toolResult.js"

export const excerptOf = (value: unknown, chars: number) => JSON.stringify(value)?.slice(0, chars) ?? String(value)

/** `null` counts as absent, as it always has for the controller's tools. */
export const optionalOrNull = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { nullable: true })

export const text = (message: string) => Schema.String.annotations(sentence(message))

export const boundedInteger = (field: string, minimum: number, maximum: number) =>
  Schema.Number.annotations(sentence(`${field} must be an integer.`)).pipe(
    Schema.int(sentence(`${field} must be an integer.`)),
    Schema.between(minimum, maximum, sentence(`${field} must be from ${minimum} through ${maximum}.`))
  )

/** One of `values` (a listing's filter). */
export const oneOf = <const Values extends ReadonlyArray<string>>(values: Values) =>
  Schema.String.pipe(Schema.filter((value): value is Values[number] => values.includes(value), {
    message: () => `must be one of ${values.join(", ")}.`
  }))

/** A whole number from `min` through `max` (a listing's page). */
export const wholeNumber = (min: number, max: number) =>
  Schema.Number.pipe(Schema.filter((value) => Number.isInteger(value) && value >= min && value <= max, {
    message: () => `must be a whole number from ${min} through ${max}.`
  }))
