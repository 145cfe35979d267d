import { fstatSync } from "node:fs"

/** Whether `fd` is an open socket (a launcher's reserved listener); anything else, or nothing, is not. */
export const isSocketDescriptor = (fd: number) => {
  try {
    return fstatSync(fd).isSocket()
  } catch {
    return false
  }
}
