import { Effect, Option } from "effect"
import { controllerOrigin } from "../domain/product.js"
import { ControllerClient } from "../services/ControllerClient.js"
import { launchUrlOf } from "../services/ControllerRuntime.js"

/**
 * The page's address of a run or a batch, from the launch URL of the controller the command talks to
 * (`http://127.0.0.1:PORT/?token=…`): opened in any browser, it sets the page's cookie and shows that run or
 * batch (docs/controller.md, "Addresses"). It is good while that controller runs: a controller started later
 * has another API token, and another port when the usual one is taken.
 */
export const pageAddress = (launchUrl: string, pathname: string, query: Readonly<Record<string, string | undefined>> = {}) => {
  const url = new URL(launchUrl)
  const token = url.searchParams.get("token")
  const address = new URL(pathname, url.origin)
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") address.searchParams.set(name, value)
  if (token !== null) address.searchParams.set("token", token)
  return address.href
}

/** A thread's Configure in the page, where its configuration can be changed before a replay. */
export const threadPageAddress = (launchUrl: string, threadId: string) => pageAddress(launchUrl, `/threads/${encodeURIComponent(threadId)}`)

export const runPageAddress = (launchUrl: string, runId: string) => pageAddress(launchUrl, `/runs/${encodeURIComponent(runId)}`)

/** The Runs list with its filters, as the page's own address of it (`/runs?query=&status=&winner=`). */
export const runsPageAddress = (
  launchUrl: string,
  filters: { readonly query?: string | undefined; readonly status?: string | undefined; readonly winner?: string | undefined }
) => pageAddress(launchUrl, "/runs", { query: filters.query, status: filters.status, winner: filters.winner })

export const batchPageAddress = (launchUrl: string, batchId: string) => pageAddress(launchUrl, `/batches/${encodeURIComponent(batchId)}`)

/**
 * The launch URL of a running controller of this install that keeps its runs in `runRoot` (any of them shows
 * any run of the run root), or null when none runs: a command that needs no controller starts none for this.
 */
export const runningControllerUrl = (controllersRoot: string, runRoot: string) =>
  Effect.gen(function*() {
    const client = yield* ControllerClient
    const found = yield* client.findLive(controllersRoot, (controller, status, health) =>
      status === "compatible" && health.controller_session_id === controller.sessionId && controller.apiToken !== undefined &&
      controller.settings?.run_root === runRoot)
    return Option.match(found, { onNone: () => null, onSome: (controller) => launchUrlOf(controllerOrigin(controller.port), controller.apiToken) })
  }).pipe(Effect.orElseSucceed(() => null))
