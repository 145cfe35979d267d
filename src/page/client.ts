/**
 * The page's client of the controller: each tool is called by its name with a payload typed by the same
 * Schemas the server decodes (`ToolPayloads`), and its answer decoded with the tool's result Schema
 * (`ToolResults`), so a misspelt tool, a wrong field or an answer the page does not understand is a compile
 * error or a message, never an `undefined` read later.
 */
import { Data, Either, Schema } from "effect"
import { type ToolName, type ToolPayloadInput, type ToolResultOf, ToolResults, ToolResultSchema } from "../domain/contracts/index.js"
import { describeParseError } from "../domain/toolResult.js"
import { notice } from "./dom.js"

/** The controller refused the request (its own sentence), e.g. a missing cookie (HTTP 401) or a tool's error. */
export class ControllerRefused extends Data.TaggedError("ControllerRefused")<{ readonly message: string; readonly status: number }> {}

/** The controller answered with something its contract does not describe. */
export class UnexpectedAnswer extends Data.TaggedError("UnexpectedAnswer")<{ readonly message: string }> {}

/** A message of an error, whatever was thrown. */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

let tokenRefused = false
/** Whether the controller refused this page's cookie: then the page says how to get in, not that it is gone. */
export const wasTokenRefused = () => tokenRefused

const decodeAnswer = Schema.decodeUnknownEither(ToolResultSchema)

/** The controller's sentence in a refused answer, else the HTTP status. */
export const failureText = (payload: unknown, response: Response) => {
  const decoded = decodeAnswer(payload)
  const first = Either.isRight(decoded) ? decoded.right.content[0] : undefined
  return first === undefined ? `${response.status} ${response.statusText}` : first.text
}

/** A JSON POST to the controller; a refused one throws `ControllerRefused` with the controller's own sentence. */
export async function postRaw(path: string, body: object): Promise<Response> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body)
  })
  if (!response.ok) {
    const text = failureText(await response.json().catch(() => ({})), response)
    // 401: the page's cookie is missing or belongs to an earlier controller; say how to get in.
    if (response.status === 401) {
      tokenRefused = true
      notice(text)
    }
    throw new ControllerRefused({ message: text, status: response.status })
  }
  return response
}

/** A JSON POST whose answer is a tool answer (`content`, `structuredContent`, `isError`). */
export async function post(path: string, body: object): Promise<unknown> {
  const response = await postRaw(path, body)
  const payload: unknown = await response.json().catch(() => ({}))
  const decoded = decodeAnswer(payload)
  if (Either.isRight(decoded) && decoded.right.isError === true) {
    throw new ControllerRefused({ message: failureText(payload, response), status: response.status })
  }
  return payload
}

/** Calls the tool `name` with a payload its contract accepts; resolves to its decoded result. */
export async function callTool<Name extends ToolName>(name: Name, args?: ToolPayloadInput<Name>): Promise<ToolResultOf<Name>> {
  const answer = decodeAnswer(await post("/api/call", { name, arguments: args ?? {} }))
  if (Either.isLeft(answer)) throw new UnexpectedAnswer({ message: `The controller's answer to ${name} is not a tool answer.` })
  const schema = ToolResults[name] as Schema.Schema<ToolResultOf<Name>, unknown>
  const result = Schema.decodeUnknownEither(schema)(answer.right.structuredContent ?? {})
  if (Either.isLeft(result)) {
    throw new UnexpectedAnswer({ message: `The controller's answer to ${name} is not what this page expects (${describeParseError(result.left)}); reload the page.` })
  }
  return result.right
}
