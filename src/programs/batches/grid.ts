/** A batch as threads × models (`get_batch`'s `grid`): its items' verdicts, the threads' titles and, once written, its portfolio's statistics. */
import { Effect, Option } from "effect"
import type { BatchSummary } from "../../domain/batch.js"
import { buildGrid } from "../../domain/portfolio/grid.js"
import { MAX_PORTFOLIO_FILE_BYTES, PortfolioFile } from "../../domain/portfolio/portfolio.js"
import { FileStore } from "../../services/FileStore.js"
import { threadTitles } from "../portfolio/pageInputs.js"

type Items = ReadonlyArray<BatchSummary["items"][number] & { readonly blind?: boolean | undefined }>

/** The portfolio the batch wrote when it ended; none before, or when it cannot be read. */
const portfolioOf = (summary: Pick<BatchSummary, "portfolio">) =>
  summary.portfolio === null
    ? Effect.succeed(null)
    : Effect.flatMap(FileStore, (files) => files.readDecodedOption(summary.portfolio!.portfolio_json, MAX_PORTFOLIO_FILE_BYTES, PortfolioFile)).pipe(
      Effect.map(Option.getOrNull),
      Effect.orElseSucceed(() => null)
    )

export const batchGrid = (summary: Pick<BatchSummary, "models" | "portfolio"> & { readonly items: Items }) =>
  Effect.gen(function*() {
    const titles = yield* threadTitles([...new Set(summary.items.map((item) => item.thread_id))])
    return buildGrid({
      entries: summary.items.map((item) => ({
        thread_id: item.thread_id,
        model: item.model,
        run_id: item.run_id,
        status: item.status,
        winner: item.winner,
        caveats: item.caveats ?? [],
        checks: item.checks ?? null,
        blind: item.blind
      })),
      titles,
      portfolio: yield* portfolioOf(summary),
      models: summary.models
    })
  })
