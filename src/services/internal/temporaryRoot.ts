import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { isSameProcess, startTimeOf } from "./procfs.js"

/**
 * This process's private folder in the system's temporary directory (0700): reviewer workspaces and
 * implementers' temporary directories are made inside it. Its `.owner` file names the process that
 * made it (pid and start time), so that the next controller removes what a killed one left behind.
 * Neither name tells an agent anything about the run, the order or the authors.
 */

const PREFIX = "private-"
const OWNER_FILE = ".owner"
const OWNER_KIND = "codex-replay temporary root"

let current: Promise<string> | undefined

const create = async () => {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), PREFIX))
  await fs.chmod(directory, 0o700)
  const owner = { kind: OWNER_KIND, pid: process.pid, start_time: startTimeOf(process.pid) ?? null }
  const temporary = path.join(directory, `${OWNER_FILE}.${randomBytes(6).toString("hex")}`)
  await fs.writeFile(temporary, JSON.stringify(owner), { mode: 0o600 })
  await fs.rename(temporary, path.join(directory, OWNER_FILE))
  return fs.realpath(directory)
}

/** The folder, made on first use (again if something removed it). */
export const temporaryRoot = async (): Promise<string> => {
  const known = current === undefined ? undefined : await current.catch(() => undefined)
  if (known !== undefined && (await fs.stat(path.join(known, OWNER_FILE)).then(() => true, () => false))) return known
  current = create()
  return current
}

/** A folder's owner, if it is one of ours: the process recorded in its `.owner` file. */
const ownerOf = async (directory: string) => {
  try {
    const owner = JSON.parse(await fs.readFile(path.join(directory, OWNER_FILE), "utf8")) as Record<string, unknown>
    return owner.kind === OWNER_KIND ? owner : undefined
  } catch {
    return undefined
  }
}

/**
 * Removes every private folder (ours or another user's never) whose owning process is gone, or is now
 * a different process with the same pid. Answers how many were removed.
 */
export const removeAbandonedTemporaryRoots = async (): Promise<number> => {
  const parent = os.tmpdir()
  const entries = await fs.readdir(parent).catch(() => [] as Array<string>)
  const uid = process.getuid?.()
  let removed = 0
  for (const entry of entries.filter((name) => name.startsWith(PREFIX))) {
    const directory = path.join(parent, entry)
    const stat = await fs.lstat(directory).catch(() => undefined)
    if (stat === undefined || !stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue
    const owner = await ownerOf(directory)
    if (owner === undefined || isSameProcess(owner.pid, owner.start_time)) continue
    await fs.rm(directory, { recursive: true, force: true }).then(() => removed++, () => undefined)
  }
  return removed
}
