import type { PlatformError } from "@effect/platform/Error"
import type { File } from "@effect/platform/FileSystem"
import { Context, type Effect, type Option } from "effect"

/** What is at a path itself, a final symlink not followed. */
export interface LinkInfo {
  readonly type: File.Type
  readonly uid: number
  /** Its own size: a link's is the link's, not its target's. */
  readonly size: number
}

/**
 * The file operations `@effect/platform`'s `FileSystem` does not offer: looking at a path without following a
 * final symlink, and opening files with `O_NOFOLLOW` (docs/security.md: files of run directories are never read
 * or appended through a link, which could lead anywhere). Failures carry the system's code in their `cause`.
 */
export class LinkSafeFiles extends Context.Tag("codex-replay/LinkSafeFiles")<LinkSafeFiles, {
  /** What is at `path` (`lstat`); `None` when nothing is. */
  readonly lstat: (path: string) => Effect.Effect<Option.Option<LinkInfo>, PlatformError>
  /** A whole regular file opened without following a link; `None` when it is larger than `maxBytes`. */
  readonly readRegular: (path: string, maxBytes: number) => Effect.Effect<Option.Option<string>, PlatformError>
  /** The last `maxBytes` bytes of a file opened without following a link; a missing file is empty. */
  readonly readTail: (path: string, maxBytes: number) => Effect.Effect<string, PlatformError>
  /** Appends to a private file (created 0600) opened without following a link. */
  readonly append: (path: string, text: string) => Effect.Effect<void, PlatformError>
  /** Whether `path` is a regular file this process may execute; anything unreadable is not. */
  readonly isExecutable: (path: string) => Effect.Effect<boolean>
}>() {}
