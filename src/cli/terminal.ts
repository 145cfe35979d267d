import { Effect } from "effect"
import * as readline from "node:readline"
import { SpawnFailed } from "../domain/errors.js"
import { formatInteger } from "../domain/report/format.js"
import { ProcessRunner } from "../services/ProcessRunner.js"
import { CommandLineIo, type OutputStream, writeTo } from "./io.js"
import { lookOf, type TableLook } from "./table.js"

/**
 * Where a command writes. With `--json`, stdout carries exactly one JSON document and everything meant
 * for a person (progress, prompts) goes to stderr.
 */
export interface Output {
  readonly json: boolean
  /** Where lines for a person go: stdout normally, stderr under `--json`. */
  readonly person: OutputStream
  /** How a table looks on stdout (its width and colour). */
  readonly look: TableLook
  /** A line for a person. */
  readonly say: (line: string) => Effect.Effect<void>
  /** The machine-readable answer (only under `--json`). */
  readonly result: (value: unknown) => Effect.Effect<void>
  /** Text written to stdout exactly as it is (a CSV document, say), once the stream took it. */
  readonly raw: (text: string) => Effect.Effect<void>
}

/** The command's output on its terminal (`CommandLineIo`). */
export const makeOutput = (json: boolean): Effect.Effect<Output> =>
  Effect.map(CommandLineIo, (io): Output => {
    const person = json ? io.stderr : io.stdout
    return {
      json,
      person,
      look: lookOf(io.stdout, io.env),
      say: (line) => writeTo(person, `${line}\n`),
      result: (value) => writeTo(io.stdout, `${JSON.stringify(value, null, 2)}\n`),
      raw: (text) => writeTo(io.stdout, text)
    }
  })

/** Writes `question` to stderr and reads one line of stdin; end of input answers "". */
export const ask = (question: string) =>
  Effect.flatMap(CommandLineIo, (io) =>
    Effect.async<string>((resume) => {
      io.stderr.write(question)
      const lines = readline.createInterface({ input: io.stdin, terminal: false })
      let answered = false
      lines.once("line", (line) => {
        answered = true
        lines.close()
        resume(Effect.succeed(line))
      })
      lines.once("close", () => {
        if (!answered) resume(Effect.succeed(""))
      })
      return Effect.sync(() => lines.close())
    }))

export const isYes = (answer: string) => /^\s*(y|yes)\s*$/i.test(answer)

/** Opens a file with the desktop's handler (`open` on macOS, `xdg-open` elsewhere), without waiting for it. */
export const openWithDesktop = (file: string) =>
  Effect.gen(function*() {
    const opener = process.platform === "darwin" ? "open" : "xdg-open"
    yield* (yield* ProcessRunner).startDetached(opener, [file]).pipe(
      // The machine lacks the opener: nothing the user typed was wrong.
      Effect.mapError(() =>
        new SpawnFailed({
          command: opener,
          message: `Cannot open the report: ${opener} is not available. Install it, or open ${file} in a browser yourself.`
        })
      )
    )
  })

/**
 * A page's closing line, as `1–20 of 2,002 imported thread(s); more with --offset 20.`: the counts read as
 * numbers do (as "Reading 812 of 3,200 sessions…"), the offset as the flag takes it.
 */
export const pageLine = (
  page: { readonly offset: number; readonly shown: number; readonly total: number; readonly hasMore: boolean },
  what: string
) => {
  const last = page.offset + page.shown
  return `${formatInteger(page.offset + 1)}–${formatInteger(last)} of ${formatInteger(page.total)} ${what}${page.hasMore ? `; more with --offset ${last}` : ""}.`
}

/**
 * The days of `--since`/`--until` as a sentence says them: "from 2026-01-01 through 2026-01-31", "on or after
 * 2026-01-01", "on or before 2026-01-31"; undefined without either.
 */
export const daysWords = (range: { readonly since?: string | undefined; readonly until?: string | undefined }) =>
  range.since !== undefined && range.until !== undefined
    ? `from ${range.since} through ${range.until}`
    : range.since !== undefined
    ? `on or after ${range.since}`
    : range.until !== undefined
    ? `on or before ${range.until}`
    : undefined

/** A one-line rendering of a value that may be missing. */
export const orDash = (value: unknown) => (typeof value === "string" && value !== "" ? value : "-")

/** The first line of a text, cut to `max` characters. */
export const firstLine = (text: string, max = 160) => {
  const line = text.trim().split("\n")[0] ?? ""
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
