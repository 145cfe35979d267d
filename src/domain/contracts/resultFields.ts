/** The fields the result Schemas share. */
import { Schema } from "effect"

/** A struct whose fields beyond the listed ones are kept as they are when decoding and encoding. */
export const open = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).annotations({ parseOptions: { onExcessProperty: "preserve" } })

export const NullableString = Schema.NullOr(Schema.String)
export const Strings = Schema.Array(Schema.String)

export const ModelOption = Schema.Struct({
  id: Schema.String,
  label: Schema.String,
  default: Schema.optional(Schema.Literal(true))
})
export type ModelOption = typeof ModelOption.Type

export const Diagnostic = Schema.Struct({ step: Schema.String, message: Schema.String })
