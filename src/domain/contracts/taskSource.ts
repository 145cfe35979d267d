/**
 * The task's source and the check of a prompt against it (docs/history.md, "The task comes from the
 * user"): what `synthesize_request` answers beside the prompt and what `prepare_run` flags before approval.
 */
import { Schema } from "effect"
import { WorkerUsage } from "../worker.js"
import { NullableString, Strings } from "./resultFields.js"

/** One of the user's own messages, with the question Claude asked right before it. */
export const TaskSourceMessage = Schema.Struct({
  kind: Schema.Literal("prompt", "command", "answer", "rejection"),
  text: Schema.String,
  asked: NullableString,
  uuid: NullableString,
  timestamp: NullableString
})

/** How much a prompt shares with the source messages (src/domain/history/taskOverlap.ts). */
export const TaskOverlap = Schema.Struct({
  share: Schema.NullOr(Schema.Number),
  prompt_words: Schema.Number,
  shared_words: Schema.Number,
  threshold: Schema.Number,
  /** The share of the user's own content words found in the prompt (absent in records written before it). */
  coverage: Schema.optional(Schema.NullOr(Schema.Number)),
  min_coverage: Schema.optional(Schema.Number),
  flagged: Schema.Boolean,
  unsupported_words: Strings
})

/** The reconstruction call, for the cost of the run: its model and token usage. */
export const SynthesisCall = Schema.Struct({ model: Schema.String, usage: WorkerUsage })

/** `prepare_run`'s check of the configuration's prompt against the user's messages in the thread or chunk. */
export const TaskCheck = Schema.Struct({
  overlap: TaskOverlap,
  /** The check in one sentence, for the approval prompt. */
  message: Schema.String,
  source_messages: Schema.Array(TaskSourceMessage),
  /** When the prompt is a cached reconstruction: the call that wrote it (model and tokens), else null. */
  synthesis: Schema.NullOr(SynthesisCall)
})

/** `synthesize_request`: a thread and, for a chunk, its range. */
export const SynthesizeRequestPayload = Schema.Struct({
  thread_id: Schema.String,
  range_start: Schema.optional(Schema.String),
  range_end: Schema.optional(Schema.String)
})
