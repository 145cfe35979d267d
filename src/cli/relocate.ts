import { Either } from "effect"
import * as path from "node:path"
import { type ControllerError, invalidArgument } from "../domain/errors.js"
import { emptyBeginningHint, repositoryHint } from "../domain/unblock.js"

/**
 * `replay --repo PATH`: the folder that holds the thread's repository now. It is taken relative to the
 * current folder; the controller checks that it is a Git repository holding the thread's start
 * (`repository_path`), and says in one sentence why not.
 */
export const repositoryPathOf = (raw: string | undefined, cwd: string): Either.Either<string | undefined, ControllerError> => {
  if (raw === undefined) return Either.right(undefined)
  return raw.trim() === "" ? Either.left(invalidArgument("--repo must name a folder.")) : Either.right(path.resolve(cwd, raw.trim()))
}

/** What `inspect_thread` is asked: the thread, looked at in the repository folder when one is given. */
export const inspectArguments = (threadId: string, repositoryPath: string | undefined) =>
  repositoryPath === undefined ? { thread_id: threadId } : { thread_id: threadId, repo: repositoryPath }

/** The configuration with the repository folder, for the controller to find the beginning in. */
export const withRepositoryPath = <C extends object>(configuration: C, repositoryPath: string | undefined) =>
  repositoryPath === undefined ? configuration : { ...configuration, repository_path: repositoryPath }

/** Why `replay` refuses an empty beginning Claude's edits do not allow, and what unblocks it. */
export const emptyBeginningRefusal = (existing: number) =>
  `This replay would start from an empty folder although Claude modified ${existing} file(s) that existed before the session, so it would not be like-for-like; nothing was started: ${repositoryHint()}, or ${emptyBeginningHint()} to run it anyway.`

/** The beginning the controller found in the repository folder, said before the approval. */
export const relocatedLine = (configuration: { readonly repo: string | null; readonly baseline_commit: string | null; readonly ending_commit: string | null }) =>
  `Relocated:  ${configuration.repo ?? "-"}, from git ${configuration.baseline_commit?.slice(0, 12) ?? "-"} to ${configuration.ending_commit?.slice(0, 12) ?? "-"}`
