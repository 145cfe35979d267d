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
