/** Reading Node's system errors (pure: the modules doing the I/O decide what each means). */

/** The `code` of a Node system error (`ENOENT`, `EACCES`…), if it has one. */
export const errnoOf = (error: unknown): string | undefined => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === "string" ? code : undefined
}

/** Nothing there, or a file where a directory of the path should be (`runs/notes.txt/…`). */
export const isMissing = (error: unknown) => {
  const code = errnoOf(error)
  return code === "ENOENT" || code === "ENOTDIR"
}

export const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error))
