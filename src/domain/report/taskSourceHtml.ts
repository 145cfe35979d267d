/** The report's "Where the task came from" section: the user's messages the prompt was written from, and how much it shares with them. */
import type { TaskSourceMessage } from "../history/taskSource.js"
import type { TaskOverlap } from "../history/taskOverlap.js"
import { overlapSentence } from "../history/taskOverlap.js"
import type { WorkerUsage } from "../worker.js"
import { escapeHtml } from "./format.js"

/** What the report keeps of the task's source (report.json's `task_source`). */
export interface ReportTaskSource {
  readonly messages: ReadonlyArray<TaskSourceMessage>
  readonly overlap: TaskOverlap
  /** The reconstruction call that wrote the prompt (model and tokens as Codex reported them); null when none did. */
  readonly synthesis?: { readonly model: string; readonly usage: WorkerUsage } | null
}

const KIND_LABELS: Record<TaskSourceMessage["kind"], string> = {
  prompt: "Prompt",
  command: "Command",
  answer: "Answer to Claude's question",
  rejection: "Reason for rejecting a tool use"
}

const messageItem = (message: TaskSourceMessage) =>
  `<li>${message.asked === null ? "" : `<p class="muted">Claude asked:</p><pre class="request">${escapeHtml(message.asked)}</pre>`}<p class="muted">${escapeHtml(KIND_LABELS[message.kind])}:</p><pre class="request">${escapeHtml(message.text)}</pre></li>`

const synthesisLine = (source: ReportTaskSource) => {
  const call = source.synthesis
  if (call === null || call === undefined) return ""
  return `<p class="hint" id="task-synthesis">The prompt was reconstructed from these messages by ${escapeHtml(call.model)} (${call.usage.input.toLocaleString("en-US")} input and ${call.usage.output.toLocaleString("en-US")} output tokens).</p>`
}

export const taskSourceSection = (source: ReportTaskSource | null | undefined) => {
  if (source === null || source === undefined) return ""
  const flag = source.overlap.flagged ? ` class="possible-leak"` : ` class="hint"`
  return `<section aria-labelledby="task-source-heading"><h2 id="task-source-heading">Where the task came from</h2><p${flag} id="task-overlap">${escapeHtml(overlapSentence(source.overlap))}</p>${synthesisLine(source)}<p class="hint">The user's own messages in the thread, with the questions Claude asked right before them; Claude's code, tool calls and output never entered the task.</p><ol class="task-source">${source.messages.map(messageItem).join("")}</ol></section>`
}
