import { Either, JSONSchema, ParseResult, Schema } from "effect"
import type { WorkerError } from "../errors.js"
import { isRecord } from "./events.js"
import { errorMessage, workerError } from "./failures.js"


export type JsonSchemaObject = Record<string, unknown>

const strictnessProblem = (node: unknown, where: string): string | undefined => {
  if (Array.isArray(node)) {
    for (const [index, child] of node.entries()) {
      const problem = strictnessProblem(child, `${where}[${index}]`)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  if (!isRecord(node)) return undefined
  if (node.type === "object" && isRecord(node.properties)) {
    const required = new Set(Array.isArray(node.required) ? node.required : [])
    const optional = Object.keys(node.properties).find((key) => !required.has(key))
    if (optional !== undefined) return `property "${optional}" at ${where} is optional; strict output needs every property required`
    if (node.additionalProperties !== false) return `the object at ${where} allows additional properties`
  }
  for (const [key, child] of Object.entries(node)) {
    const problem = strictnessProblem(child, `${where}/${key}`)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** The root inlined when JSONSchema.make answers with a `$ref` into `$defs`. */
const inlineRootReference = (schema: JsonSchemaObject): JsonSchemaObject => {
  const reference = schema.$ref
  const definitions = schema.$defs
  if (typeof reference !== "string" || !isRecord(definitions)) return schema
  const target = definitions[reference.replace("#/$defs/", "")]
  return isRecord(target) ? { ...target, $defs: definitions } : schema
}

/**
 * The JSON Schema sent with `--output-schema`: a plain object schema in OpenAI's strict form
 * (the CLI forwards it with `strict: true` and the API rejects anything else).
 */
export const outputJsonSchema = (schema: unknown): Either.Either<JsonSchemaObject, string> => {
  if (!Schema.isSchema(schema)) return Either.left("The output schema must be an Effect Schema.")
  let document: JsonSchemaObject
  try {
    document = inlineRootReference({ ...(JSONSchema.make(schema as Schema.Schema<unknown, unknown>) as unknown as JsonSchemaObject) })
  } catch (error) {
    return Either.left(`The output schema cannot be expressed as JSON Schema: ${errorMessage(error)}`)
  }
  delete document.$schema
  if (document.type !== "object") return Either.left("The output schema must describe a plain JSON object.")
  const problem = strictnessProblem(document, "#")
  return problem === undefined ? Either.right(document) : Either.left(`The output schema is not strict: ${problem}.`)
}

/** Parses and validates a schema answer; the raw text is kept on failure. */
export const decodeOutput = <A, I>(
  schema: Schema.Schema<A, I>,
  finalResponse: string,
  elapsedMs: number
): Either.Either<A, WorkerError> => {
  const invalid = (message: string) =>
    workerError({ code: "invalid_output", message, retryable: false, stage: "output", exitCode: 0, systemCode: null, elapsedMs, rawOutput: finalResponse })
  let parsed: unknown
  try {
    parsed = JSON.parse(finalResponse)
  } catch {
    return Either.left(invalid("Codex answered with text that is not JSON where the output schema required JSON."))
  }
  return Schema.decodeUnknownEither(schema)(parsed).pipe(
    Either.mapLeft((error) =>
      invalid(`Codex's answer does not match the output schema: ${ParseResult.TreeFormatter.formatErrorSync(error)}`)
    )
  )
}
