/**
 * Entry point of the listing's worker threads (loaded by ClaudeHistory's pool, from src under tsx/vitest or
 * from dist): each message names one session's files; the reply is its list summary or why it failed.
 * Tasks run one after another (reads are synchronous), so one read buffer serves them all.
 */
import { parentPort } from "node:worker_threads"
import { readChunksSync } from "../../services/internal/transcriptFiles.js"
import { digestSession, type SessionDigest, type SessionFiles } from "./reader.js"

export interface SummaryTask {
  readonly id: number
  readonly files: SessionFiles
}

export type SummaryReply =
  | { readonly id: number; readonly ok: true; readonly digest: SessionDigest }
  | {
    readonly id: number
    readonly ok: false
    readonly name: string
    readonly message: string
    readonly code: string | undefined
  }

const port = parentPort
if (port !== null) {
  port.on("message", (task: SummaryTask) => {
    digestSession(task.files, readChunksSync).then(
      (digest) => port.postMessage({ id: task.id, ok: true, digest } satisfies SummaryReply),
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error))
        const code = (failure as { code?: unknown }).code
        port.postMessage({
          id: task.id,
          ok: false,
          name: failure.name,
          message: failure.message,
          code: typeof code === "string" ? code : undefined
        } satisfies SummaryReply)
      }
    )
  })
}
