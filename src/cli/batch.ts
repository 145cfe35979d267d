import * as path from "node:path"
import { Effect, Either, Exit, Option, Schedule } from "effect"
import type { BatchSummary } from "../domain/batch.js"
import type { PrepareBatchResult } from "../domain/contracts/index.js"
import { conflict, type ControllerError, invalidArgument, notFound } from "../domain/errors.js"
import { THREAD_ID_PATTERN } from "../domain/ids.js"
import { MAX_PORTFOLIO_FILE_BYTES, type Portfolio, PortfolioFile } from "../domain/portfolio/portfolio.js"
import { MAX_REPLAY_THREADS } from "../domain/product.js"
import { formatElapsed } from "../domain/report/format.js"
import { type CallTool, connectController } from "../rpc/client.js"
import { GRID_CSV_FILE } from "../domain/portfolio/gridCsv.js"
import { visible } from "../domain/report/visible.js"
import { batchPageAddress } from "./addresses.js"
import { FileStore } from "../services/FileStore.js"
import { costLines, modelLines } from "./portfolio.js"
import { configurationFrom } from "./replay.js"
import { checkModels } from "./modelChecks.js"
import { checkSecondJudge, secondJudgeLine, withSecondJudge } from "./secondJudge.js"
import { checkRepeats, repeatsLine, withRepeats } from "./repeats.js"
import { commandsLine } from "./replayCommands.js"
import { batchTable } from "./batchTable.js"
import { CommandLineIo } from "./io.js"
import { renderTable, usd } from "./table.js"
import { ask, firstLine, isYes, makeOutput, type Output, orDash } from "./terminal.js"

export interface BatchOptions {
  readonly query?: string | undefined
  readonly threads?: string | undefined
  readonly recent?: number | undefined
  readonly models: ReadonlyArray<string>
  readonly reviewerModel?: string | undefined
  /** `--second-judge claude[:MODEL]`: Claude judges every replay too. */
  readonly secondJudge?: string | undefined
  /** `--repeats K`: every (thread, model) replayed K times. */
  readonly repeats?: number | undefined
  readonly yes: boolean
  /** `--accept-empty-beginning`: threads without a Git beginning may start from an empty folder. */
  readonly acceptEmptyBeginning?: boolean
  readonly json: boolean
  /** The threads' titles, as the command line resolved them, for the summary table. */
  readonly titles?: ReadonlyMap<string, string>
}

type Selection =
  | { readonly kind: "query"; readonly query: string }
  | { readonly kind: "threads"; readonly threadIds: ReadonlyArray<string> }
  | { readonly kind: "recent"; readonly count: number }

const POLL_MILLIS = 500

/** The threads chosen on the command line: exactly one of --query, --threads and --recent. */
const selectionOf = (options: BatchOptions): Either.Either<Selection, ControllerError> => {
  const given = [options.query, options.threads, options.recent].filter((value) => value !== undefined).length
  if (given !== 1) return Either.left(invalidArgument("Choose the threads with exactly one of --query, --threads and --recent."))
  if (options.recent !== undefined) {
    return Number.isInteger(options.recent) && options.recent >= 1 && options.recent <= MAX_REPLAY_THREADS
      ? Either.right({ kind: "recent", count: options.recent })
      : Either.left(invalidArgument(`--recent must be a whole number from 1 through ${MAX_REPLAY_THREADS}.`))
  }
  if (options.query !== undefined) {
    return options.query.trim() === ""
      ? Either.left(invalidArgument("--query must not be empty."))
      : Either.right({ kind: "query", query: options.query.trim() })
  }
  const threadIds = (options.threads ?? "").split(",").map((id) => id.trim()).filter((id) => id !== "")
  const invalid = threadIds.find((id) => !THREAD_ID_PATTERN.test(id))
  if (invalid !== undefined) return Either.left(invalidArgument(`Invalid thread ID ${JSON.stringify(invalid.slice(0, 100))}; see \`codex-replay threads\`.`))
  if (threadIds.length === 0) return Either.left(invalidArgument("--threads must name at least one thread ID."))
  const repeated = threadIds.find((id, index) => threadIds.indexOf(id) !== index)
  if (repeated !== undefined) return Either.left(invalidArgument(`Thread ${repeated} is given more than once in --threads.`))
  if (threadIds.length > MAX_REPLAY_THREADS) {
    return Either.left(invalidArgument(`A batch replays at most ${MAX_REPLAY_THREADS} threads; --threads names ${threadIds.length}.`))
  }
  return Either.right({ kind: "threads", threadIds })
}

/** Checks the command line before anything is contacted or written. */
export const validateBatchOptions = (options: BatchOptions) =>
  Either.flatMap(
    Either.flatMap(Either.flatMap(checkRepeats(options.repeats), () => checkSecondJudge(options.secondJudge)), () => checkModels(options.models, options.reviewerModel)),
    () => selectionOf(options)
  )

/** The thread ids of the selection; a search or `--recent` asks the controller's thread list. */
const threadIdsOf = (call: CallTool, selection: Selection) =>
  Effect.gen(function*() {
    if (selection.kind === "threads") return selection.threadIds
    const listed = yield* call(
      "list_threads",
      selection.kind === "query" ? { query: selection.query, limit: MAX_REPLAY_THREADS } : { limit: selection.count }
    )
    const ids = listed.threads.map((thread) => thread.imported_thread_id)
    if (ids.length === 0) {
      return yield* notFound(selection.kind === "query" ? `No thread matches ${JSON.stringify(selection.query)}.` : "There is no thread to replay.")
    }
    return ids
  })

interface Blocked {
  readonly thread_id: string
  readonly reasons: ReadonlyArray<string>
}

/** Each thread's configuration, as `replay` builds it from the controller's inspection; a thread that cannot be configured is blocked. */
const configurationsOf = (call: CallTool, threadIds: ReadonlyArray<string>, models: ReadonlyArray<string>, acceptEmpty: boolean) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const configured = yield* Effect.forEach(threadIds, (threadId) =>
      Effect.gen(function*() {
        const inspection = yield* call("inspect_thread", { thread_id: threadId })
        const blockers = inspection.blockers
        const request = inspection.thread.request
        if (blockers.length > 0 || request.trim() === "") {
          return Either.left<Blocked>({ thread_id: threadId, reasons: blockers.length > 0 ? blockers : ["The thread has no request to replay."] })
        }
        const recorded = inspection.baseline.repository
        const repositoryIsHere = typeof recorded === "string" && (yield* Effect.orElseSucceed(files.exists(recorded), () => false))
        return Either.right(yield* configurationFrom(threadId, inspection, request, models, acceptEmpty, undefined, repositoryIsHere))
      }).pipe(Effect.catchAll((error) => Effect.succeed(Either.left<Blocked>({ thread_id: threadId, reasons: [error.message] })))), {
      concurrency: 4
    })
    return {
      configurations: configured.flatMap((entry) => (Either.isRight(entry) ? [entry.right] : [])),
      blocked: configured.flatMap((entry) => (Either.isLeft(entry) ? [entry.left] : []))
    }
  })

/** The batch's progress in one line, its costs with two decimals as the tables show them. */
export const progressLine = (summary: BatchSummary) => {
  const { counts } = summary
  const done = counts.completed + counts.failed + counts.cancelled
  const left = summary.estimate_remaining_ms === null ? "" : ` · about ${formatElapsed(summary.estimate_remaining_ms)} left`
  return `${done} of ${summary.total} done (${counts.completed} completed, ${counts.failed} failed${
    counts.cancelled > 0 ? `, ${counts.cancelled} cancelled` : ""
  }) · ${counts.running} running · ${counts.pending} pending · ${formatElapsed(summary.elapsed_ms)}${left} · Codex ${
    usd(summary.cost_usd.codex)
  } · Claude ${usd(summary.cost_usd.claude)} (once per thread)${evaluationPart(summary)}${summary.waiting_for === "disk_space" ? " · waiting for disk space" : ""}`
}

/** " · evaluation $0.09" (what it cost to know), "+ N not priced" when a run's evaluation had no price. */
const evaluationPart = (summary: BatchSummary) => {
  const { evaluation, evaluation_unpriced_runs: unpriced } = summary.cost_usd
  if (evaluation === undefined) return ""
  return ` · evaluation ${usd(evaluation)}${unpriced !== undefined && unpriced > 0 ? ` (+${unpriced} not priced)` : ""}`
}

/** What a line-per-change output compares: the counts, and whether the batch waits for disk space. */
const shownPart = (line: string) => `${line.split(" · ").slice(0, 3).join()}${line.endsWith("waiting for disk space")}`

/**
 * Follows the batch until it has ended (its portfolio written): on a terminal one line rewritten
 * in place, elsewhere a line whenever the counts change.
 */
const followBatch = (call: CallTool, out: Output, batchId: string) =>
  Effect.gen(function*() {
    const stream = out.person
    const live = stream.isTTY === true
    let last = ""
    let summary: BatchSummary | undefined
    const look = Effect.gen(function*() {
      summary = (yield* call("get_batch", { batch_id: batchId })).batch
      const line = progressLine(summary)
      if (live) yield* Effect.sync(() => void stream.write(`\r\x1b[2K${line}`))
      else if (shownPart(line) !== shownPart(last)) yield* out.say(line)
      last = line
      return summary.status !== "running"
    })
    yield* look.pipe(Effect.repeat({ schedule: Schedule.spaced(POLL_MILLIS), until: (ended) => ended }))
    if (live) yield* Effect.sync(() => void stream.write("\n"))
    return summary!
  })

/** The batch's portfolio as written; one that cannot be read or decoded is left out of the summary, and said so. */
const readPortfolio = (file: string, out: Output) =>
  Effect.flatMap(FileStore, (files) => files.readDecoded(file, MAX_PORTFOLIO_FILE_BYTES, PortfolioFile)).pipe(
    Effect.map(Option.some),
    Effect.catchAll((error) => Effect.as(out.say(`The portfolio cannot be read: ${error.message}`), Option.none<Portfolio>()))
  )

/** A thread as the batch's lines name it: its id, and its title beside it when the command line resolved one. */
export const threadNamed = (threadId: string, titles: ReadonlyMap<string, string> = new Map()) => {
  const title = titles.get(threadId)
  return title === undefined || title.trim() === "" ? threadId : `${threadId} (${firstLine(visible(title), 80)})`
}

/** "Blocked: ID (title): why", one line per thread that cannot be replayed. */
export const blockedLines = (blocked: ReadonlyArray<Blocked>, titles?: ReadonlyMap<string, string>) =>
  blocked.map((entry) => `Blocked: ${threadNamed(entry.thread_id, titles)}: ${entry.reasons.join(" ")}`)

/** What each ready thread would run on every side, and why it is not like-for-like, before the approval. */
export const readyLines = (ready: PrepareBatchResult["ready_threads"], titles?: ReadonlyMap<string, string>) =>
  ready.flatMap((thread) => [
    ...(thread.warnings ?? []).map((warning) => `Warning for ${threadNamed(thread.thread_id, titles)}: ${warning}`),
    ...(thread.checks.length + thread.setup.length === 0
      ? []
      : [`Checks of ${threadNamed(thread.thread_id, titles)}: ${commandsLine(thread.checks)}; set-up: ${commandsLine(thread.setup)}`])
  ])

const printLines = (out: Output, lines: ReadonlyArray<string>) => Effect.forEach(lines, (line) => out.say(line), { discard: true })

/**
 * `codex-replay batch (--query Q | --threads ID,… | --recent N) --model M …`: configures each thread as
 * `replay` does, prepares the batch, asks for approval, starts it, shows its progress and ends with
 * the batch's portfolio verdict. Ctrl-C cancels the batch.
 */
export const batchCommand = (options: BatchOptions) =>
  Effect.gen(function*() {
    const selection = yield* Either.match(validateBatchOptions(options), { onLeft: Effect.fail, onRight: Effect.succeed })
    const out = yield* makeOutput(options.json)
    const io = yield* CommandLineIo
    const { call, passedOver, url } = yield* connectController(io.env, io.home)
    if (passedOver !== null) yield* out.say(passedOver)
    yield* out.say(`Controller: ${url}`)
    const threadIds = yield* threadIdsOf(call, selection)
    yield* out.say(`Threads:    ${threadIds.length}`)
    yield* out.say(`Models:     ${options.models.join(", ")}`)
    const { blocked: unconfigured, configurations } = yield* configurationsOf(call, threadIds, options.models, options.acceptEmptyBeginning === true)
    yield* printLines(out, blockedLines(unconfigured, options.titles))
    if (configurations.length === 0) return yield* invalidArgument("No thread of the selection can be replayed; nothing was started.")
    const batchPayload = withRepeats(options.repeats)(withSecondJudge(options.secondJudge)({
      configurations,
      reviewer_model: options.reviewerModel ?? null,
      ...(options.acceptEmptyBeginning === true ? { accept_empty_beginning: true } : {})
    }))
    const prepared = yield* call("prepare_run", batchPayload)
    if (prepared.preflight?.ready === false) return yield* conflict(prepared.preflight.message ?? "Codex cannot run here.")
    yield* printLines(out, blockedLines("batch" in prepared ? prepared.blocked : [], options.titles))
    yield* out.say(`Reviewer:   ${orDash(prepared.reviewer_model)}`)
    for (const line of [...secondJudgeLine(prepared), ...repeatsLine(prepared)]) yield* out.say(line)
    yield* printLines(out, readyLines("batch" in prepared ? prepared.ready_threads : [], options.titles))
    const prepareToken = prepared.prepare_token
    if (!prepared.ready || prepareToken === null) {
      return yield* conflict("Every thread of the batch is blocked; nothing was started.")
    }
    if (prepared.estimate !== undefined) yield* out.say(`Cost:       ${prepared.estimate.text}`)
    const prompt = String(prepared.approval_prompt)
    if (options.yes) yield* out.say(`${prompt} yes (--yes)`)
    else if (!isYes(yield* ask(`${prompt} [y/N] `))) return yield* conflict("The batch was not approved; nothing was started.")

    // Once started, Ctrl-C cancels the batch: the start is uninterruptible, an interruption is taken after it.
    const summary = yield* Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const started = yield* call("start_run", { ...batchPayload, approved: true, prepare_token: prepareToken })
        if (!("batch_id" in started)) return yield* Effect.dieMessage("The controller answered a batch's start without its batch id.")
        const batchId = started.batch_id
        yield* out.say(`Batch:      ${batchId}  ${batchPageAddress(url, batchId)}`)
        const exit = yield* Effect.exit(restore(followBatch(call, out, batchId)))
        if (Exit.isFailure(exit)) {
          yield* out.say("Cancelling the batch…")
          yield* call("cancel_batch", { batch_id: batchId }).pipe(
            Effect.flatMap(() => out.say(`Cancelled ${batchId}.`)),
            Effect.catchAll((error) => out.say(`Could not cancel ${batchId}: ${error.message}`))
          )
        }
        return yield* exit
      })
    )
    const portfolio = summary.portfolio === null ? Option.none() : yield* readPortfolio(summary.portfolio.portfolio_json, out)
    if (options.json) {
      yield* out.result({ controller_url: url, batch_id: summary.batch_id, address: batchPageAddress(url, summary.batch_id), batch: summary, portfolio: Option.getOrNull(portfolio) })
    } else {
      yield* out.say("")
      yield* out.say(`Batch ${summary.batch_id} ${summary.status} in ${formatElapsed(summary.elapsed_ms)}.`)
      yield* out.say(renderTable(batchTable(summary, options.titles ?? new Map()), out.look))
      if (Option.isSome(portfolio)) {
        yield* out.say(`Portfolio of ${portfolio.value.run_ids.length} completed run(s):`)
        for (const model of portfolio.value.models) for (const line of modelLines(model)) yield* out.say(line)
        for (const line of costLines(portfolio.value)) yield* out.say(line)
        yield* out.say(`Report:  ${summary.portfolio?.portfolio_html}`)
        yield* out.say(`         ${summary.portfolio?.portfolio_json}`)
        yield* out.say(`Grid:    ${batchPageAddress(url, summary.batch_id)} (CSV: ${path.join(path.dirname(summary.portfolio?.portfolio_html ?? ""), GRID_CSV_FILE)})`)
      }
    }
    const unfinished = summary.total - summary.counts.completed
    if (unfinished > 0) return yield* conflict(`${unfinished} of ${summary.total} replay(s) of the batch did not complete.`)
  }).pipe(Effect.scoped)
