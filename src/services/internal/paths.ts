import * as fs from "node:fs/promises"
import { isMissing } from "../../domain/ioErrors.js"

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

/** Whether `file` is a regular file this process may execute; anything unreadable is not. */
export const isExecutableFile = async (file: string): Promise<boolean> => {
  try {
    const stat = await fs.stat(file)
    await fs.access(file, fs.constants.X_OK)
    return stat.isFile()
  } catch {
    return false
  }
}
