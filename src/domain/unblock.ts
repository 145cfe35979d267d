/**
 * What unblocks a replay, in the words a person can act on: the command-line flag and the page control
 * (by its label), never an API field. The page shows controls with exactly these labels.
 */

/** The page's controls that unblock a replay, by their labels. */
export const CONTROLS = {
  /** Configure: the folder that holds the thread's repository now (a text field). */
  repositoryFolder: "Repository folder",
  /** Configure: accept that a single replay starts from an empty folder (a check box). */
  emptyBeginning: "Start from an empty folder",
  /** Configure: accept another folder than the thread's recorded one as its repository (a check box). */
  reviewedRepository: "I have reviewed this repository and these commits",
  /** The batch form: accept empty beginnings for every thread of the batch (a check box). */
  batchEmptyBeginnings: "Accept empty beginnings"
} as const

/** Where a replay is configured: one thread (`replay`, Configure) or a batch (`batch`, the batch form). */
export type Setting = "replay" | "batch"

const quoted = (label: string) => `“${label}”`

/** Point a thread at its repository's current place. */
export const repositoryHint = (setting: Setting = "replay") =>
  setting === "batch"
    ? `replay the thread alone with --repo PATH (or ${quoted(CONTROLS.repositoryFolder)} in Configure)`
    : `pass --repo PATH or fill ${quoted(CONTROLS.repositoryFolder)} in Configure with the folder that holds the thread's repository now`

/** Why a repository folder that is not an absolute path is refused, and how to give one. */
export const ABSOLUTE_REPOSITORY_FOLDER =
  `The repository folder must be an absolute path: fill ${quoted(CONTROLS.repositoryFolder)} in Configure with the folder's whole path (such as /home/me/project), or pass --repo PATH.`

/** Accept an empty beginning. */
export const emptyBeginningHint = (setting: Setting = "replay") =>
  setting === "batch"
    ? `pass --accept-empty-beginning to \`batch\` or tick ${quoted(CONTROLS.batchEmptyBeginnings)} in the batch form`
    : `pass --accept-empty-beginning or tick ${quoted(CONTROLS.emptyBeginning)} in Configure`

const plural = (count: number) => `${count} file(s)`

/**
 * The warning a replay from an empty folder carries when Claude modified files that already existed
 * (shown before the approval of a replay and of a batch alike).
 */
export const emptyBeginningWarning = (existing: ReadonlyArray<string>) =>
  `Claude modified ${plural(existing.length)} that existed before the session (${existing.join(", ")}), so a replay from an empty folder is not like-for-like.`

/** Why a configuration with an empty beginning is blocked, and what unblocks it. */
export const emptyBeginningBlocker = (existing: ReadonlyArray<string>, setting: Setting = "replay") =>
  existing.length === 0
    ? `Confirm that the replay starts from an empty folder: ${emptyBeginningHint(setting)}.`
    : `${emptyBeginningWarning(existing).replace(/\.$/, "")}: ${repositoryHint(setting)}, or accept it anyway (${emptyBeginningHint(setting)}).`
