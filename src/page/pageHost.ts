/**
 * What the Run and Results views need from the rest of the page (its state, its draft, its step), handed
 * over once by the page's wiring (`setPageHost`), as runsList.ts reaches it through `RunsListHost`.
 */
import { type Child, h, nextId } from "./dom.js"
import { hostSlot } from "./hostSlot.js"
import type { ControllerState, GetRunResult, ReplayReport } from "../domain/contracts/index.js"

/** A run as the Run view holds it: what `get_run` answered last, or only its id and why it could not be read. */
export type RunView = Partial<GetRunResult["run"]> & { readonly run_id: string; readonly load_error?: string }

/** The page's state the Run and Results views read and write. */
export interface PageApp {
  state: ControllerState | null
  step: string
  runs: Record<string, RunView | undefined>
  reports: Record<string, ReplayReport | undefined>
  pollTimer: ReturnType<typeof setTimeout> | null
  confirmCancel: string | null
}

/** The draft's runs: those this page follows, and the one whose Results are shown. */
export interface PageDraft {
  run_ids: Array<string>
  results_run: string | null
}

export interface PageHost {
  readonly app: PageApp
  readonly draft: PageDraft
  readonly showStep: (step: string, focus?: boolean) => void
  readonly saveDraft: () => void
  readonly refreshState: () => Promise<unknown>
  readonly replayAgain: (run: RunView) => void
  readonly saveBlob: (blob: Blob, fileName: string) => void
  /** How many runs the page follows at most per model chosen (the Recent runs list keeps twice as many). */
  readonly maxModels: number
}

const slot = hostSlot<PageHost>("The page's views were used before the page wired them.")

/** The page's wiring hands its host over once, before anything is shown. */
export const setPageHost = slot.set

export const pageHost = slot.get

/** A section of a view with its heading. */
export const section = (title: string, ...children: ReadonlyArray<Child>): HTMLElement => {
  const id = nextId("sec")
  return h("section", { className: "sub", "aria-labelledby": id }, h("h3", { id, text: title }), ...children)
}

/** A field of a report's part the contract leaves open (`unknown` until the reader checks it). */
export const read = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? Reflect.get(value, key) : undefined
