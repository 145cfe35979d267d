/** `POST /api/download {portfolio_id, format}`: a portfolio's page or its grid as CSV, as an attachment. */
import { Effect } from "effect"
import * as path from "node:path"
import { conflict, invalidArgument, notFound } from "../../domain/errors.js"
import { GRID_CSV_FILE } from "../../domain/portfolio/gridCsv.js"
import { FileStore } from "../../services/FileStore.js"
import { RunStore } from "../../services/RunStore.js"
import { reportDownload } from "../reports/reportDownload.js"
import { PORTFOLIO_HTML_FILE, PORTFOLIOS_DIRECTORY } from "./portfolio.js"

export const PORTFOLIO_ID_PATTERN = /^portfolio-[0-9TZ]+-[0-9a-f]{10}$/

const FORMATS = {
  csv: { file: GRID_CSV_FILE, contentType: "text/csv; charset=utf-8" },
  html: { file: PORTFOLIO_HTML_FILE, contentType: "text/html; charset=utf-8" }
} as const

export const portfolioDownload = (portfolioId: unknown, format: unknown) =>
  Effect.gen(function*() {
    if (typeof portfolioId !== "string" || !PORTFOLIO_ID_PATTERN.test(portfolioId)) return yield* invalidArgument("The portfolio ID is invalid.")
    if (format !== "csv" && format !== "html") return yield* invalidArgument("format must be csv or html.")
    const runs = yield* RunStore
    const files = yield* FileStore
    const directory = path.join(runs.runRoot, PORTFOLIOS_DIRECTORY, portfolioId)
    const found = yield* files.locateFileInside(runs.runRoot, path.relative(runs.runRoot, path.join(directory, FORMATS[format].file))).pipe(
      Effect.mapError(() => conflict(`The ${format.toUpperCase()} of portfolio ${portfolioId} cannot be read.`))
    )
    if (found._tag !== "Found") return yield* notFound(`No portfolio ${portfolioId} has a ${FORMATS[format].file} in ${runs.runRoot}.`)
    return { path: found.path, contentType: FORMATS[format].contentType, fileName: `codex-replay-${portfolioId}.${format}` }
  })

/** The daemon's downloads: a portfolio's file when a portfolio id is given, else a run's report. */
export const controllerDownload = (runId: unknown, format: unknown, portfolioId?: unknown) =>
  portfolioId === undefined ? reportDownload(runId, format) : portfolioDownload(portfolioId, format)
