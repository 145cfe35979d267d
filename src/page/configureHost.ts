/**
 * What the Thread and Configure steps keep and what they need from the rest of the page: the draft
 * configuration the user edits (kept in the browser's storage), the page's shared state, and the other
 * views' entry points, reached through a `ConfigureHost` the page installs once.
 */
import type {
  ControllerState,
  InspectThreadResult,
  PrepareRunResult,
  ThreadList,
  ThreadSummary
} from "../domain/contracts/index.js"
import type { TaskOverlap, TaskSourceMessage } from "../domain/contracts/taskSource.js"
import type { ThreadCheck } from "../domain/contracts/threadResults.js"
import { hostSlot } from "./hostSlot.js"

export type StateKind = "git" | "non_git"
export type Overlap = typeof TaskOverlap.Type
export type SourceMessage = typeof TaskSourceMessage.Type

/** A check or set-up command as Configure offers it: ticked or not, its text editable. */
export interface CommandChoice {
  command: string
  directory: string
  selected: boolean
  /** What the thread says of it; null for a command the user added. */
  found: ({ readonly runs: number } & Partial<typeof ThreadCheck.Type>) | null
}

/** A file Claude changed, counted as its work (ticked) or excluded, for a replay from an empty folder. */
export interface FileChoice {
  path: string
  kind: string
  selectable: boolean
  selected: boolean
}

/** The configuration the user edits in Configure (the draft keeps it across reloads). */
export interface Config {
  thread_id: string
  source_path: string | null
  message_uuid: string | null
  request: string
  request_method: string
  request_model?: string | null
  synthesis_attempted: boolean
  range_start: string | null
  range_end: string | null
  range_changed?: boolean
  repo: string
  /** The folder that holds the thread's repository now (“Repository folder”); empty: none. */
  repository_path?: string
  beginning_kind: StateKind
  ending_kind: StateKind
  baseline_commit: string
  ending_commit: string
  files: Array<FileChoice>
  confirm_empty_beginning: boolean
  confirm_file_selection: boolean
  confirm_repository_selection: boolean
  models: Array<string>
  reviewer_model: string
  second_judge: boolean
  second_judge_model: string
  timeout_seconds: number
  /** How many times each model replays (1–5); absent in drafts from before repeats: once. */
  repeats?: number
  checks?: Array<CommandChoice>
  setup?: Array<CommandChoice>
  task_source?: ReadonlyArray<SourceMessage> | null
  task_overlap?: Overlap | null
  task_overlap_of?: string
}

/** The page's draft: what the user chose, kept in the browser's storage. */
export interface Draft {
  source: string
  query: string
  sort: string
  thread_id: string | null
  config: Config | null
  run_ids: Array<string>
  results_run: string | null
}

/** The page's shared state that the Thread and Configure steps read and write. */
export interface PageState {
  state: ControllerState | null
  threads: Array<ThreadSummary>
  listing: ThreadList | null
  listToken: number
  inspect: InspectThreadResult | null
  inspectError: string | null
  synthesizing: boolean
  inferring: boolean
  inferNote: string
  prepared: PrepareRunResult | null
  preparing: boolean
  starting: boolean
  runs: Record<string, object | undefined>
  runFocus: string
  pendingRange: { thread_id: string; range_start: string | null; range_end: string | null } | null
  pendingCommands?: Record<string, string>
  /** prepare's sentence about the “Repository folder” given, until it is edited. */
  repositoryError?: string | null
  /** The user asked for the “Repository folder” field although the recorded folder is there. */
  showRepositoryFolder?: boolean
}

/** What these steps need from the rest of the page. */
export interface ConfigureHost {
  readonly app: PageState
  readonly draft: Draft
  readonly saveDraft: () => void
  readonly showStep: (step: string, focus?: boolean) => void
  readonly syncAddress: (how: "push" | "replace") => void
  /** Whether the Thread step picks threads for a batch, and its row for a thread then. */
  readonly batchOn: () => boolean
  readonly batchThreadPick: (thread: ThreadSummary, index: number, meta: string) => Node
  /** After an inspection: the models of a run being replayed again. */
  readonly applyPendingModels: () => void
  /** A capability gap's remediation as a sentence. */
  readonly remediationText: (action: string) => string
  /** After a start: the runs' configuration, remembered for “Replay again”, then the Run view. */
  readonly rememberConfig: (runIds: ReadonlyArray<string>) => void
  readonly renderRuns: () => void
  readonly pollRuns: () => void
  readonly refreshState: () => void
}

const slot = hostSlot<ConfigureHost>("The Configure steps were drawn before the page installed their host.")

/** Installs the page's host once, before any of these steps is drawn. */
export const installConfigureHost = slot.set

export const host = slot.get

// ------------------------------------------------------------------------------------------------
// The inspection's fields beyond its contract (kept as the controller sent them), read safely.

/** `value[key]` of an object, else undefined. */
export const prop = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined
export const textOf = (value: unknown): string | null => (typeof value === "string" ? value : null)
export const numberOf = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null)
export const listOf = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
export const textsOf = (value: unknown): ReadonlyArray<string> => listOf(value).filter((item): item is string => typeof item === "string")
export { messageOf } from "./client.js"
