import * as fs from "node:fs/promises"

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

/** Whether `target` is a directory (following links); missing is `false`, any other failure rejects. */
export const isDirectoryPath = (target: string): Promise<boolean> =>
  fs.stat(target).then((stat) => stat.isDirectory(), (error: unknown) => {
    if (isMissing(error)) return false
    throw error
  })

/** Whether anything is at `target` (not following a final link); missing is `false`, any other failure rejects. */
export const existsPath = (target: string): Promise<boolean> =>
  fs.lstat(target).then(() => true, (error: unknown) => {
    if (isMissing(error)) return false
    throw error
  })
