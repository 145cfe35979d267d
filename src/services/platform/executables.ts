import * as fs from "node:fs"

/** Whether `file` is a regular file this process may execute (synchronous: a handful of `stat`s). */
export const isExecutableFile = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}
