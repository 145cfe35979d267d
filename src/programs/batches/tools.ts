/** The batch tools: `get_batch` and `cancel_batch` (a batch is prepared and started by `prepare_run` and `start_run`). */
import { Effect } from "effect"
import { batchProgressText } from "../../domain/batch.js"
import { Batches } from "../../services/Batches.js"
import { defineTool } from "../controller/tool.js"
import { cancelBatch } from "./start.js"
import { batchGrid } from "./grid.js"
import { summaryOf } from "./summary.js"

export const getBatchTool = defineTool(
  "get_batch",
  ({ batch_id }) =>
    Effect.flatMap(Effect.flatMap(Batches, (batches) => Effect.flatMap(batches.read(batch_id), summaryOf)), (batch) =>
      Effect.map(batchGrid(batch), (grid) => ({ batch, grid }))),
  (result) => batchProgressText(result.batch)
)

export const cancelBatchTool = defineTool(
  "cancel_batch",
  ({ batch_id }) =>
    Effect.gen(function*() {
      const { idempotent, record } = yield* cancelBatch(batch_id)
      return { batch_id, batch: yield* summaryOf(record), idempotent }
    }),
  (result) => (result.idempotent ? `Batch ${result.batch_id} had already ended.` : `Batch ${result.batch_id} was cancelled.`)
)
