/** A small file system for tests of a full disk: a tmpfs (mounting one needs root) and a filler that takes its last byte. */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

/** Mounts a tmpfs of `size` (`4m`, `64m`) on `directory`; answers how `mount` ended. */
export const mountTmpfs = (directory: string, size: string) =>
  spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", directory], { encoding: "utf8" })

/** Fills the file system of `directory` to the last byte, then frees `leaveBytes`; answers how to give the space back. */
export const fill = (directory: string, leaveBytes = 0) => {
  const filler = path.join(directory, ".filler")
  const descriptor = fs.openSync(filler, "w")
  const block = Buffer.alloc(64 * 1024, 1)
  try {
    for (;;) fs.writeSync(descriptor, block)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error
  }
  try {
    for (;;) fs.writeSync(descriptor, block, 0, 1)
  } catch {
    // Not even one byte more.
  } finally {
    fs.closeSync(descriptor)
  }
  if (leaveBytes > 0) fs.truncateSync(filler, fs.statSync(filler).size - leaveBytes)
  return () => fs.rmSync(filler)
}
