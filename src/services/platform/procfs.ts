import { readFileSync, readlinkSync } from "node:fs"
import * as fs from "node:fs/promises"

/** Reads Linux's process table. Every function tolerates processes that vanish while being read. */

const readOrUndefined = (file: string) => fs.readFile(file).catch(() => undefined)

export const processGroupOf = async (pid: number): Promise<number | undefined> => {
  const stat = await readOrUndefined(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  const text = stat.toString("utf8")
  // Field 2 (comm) may contain spaces and parentheses; fields after the last ")" are fixed.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  const pgrp = Number(fields[2])
  return Number.isInteger(pgrp) ? pgrp : undefined
}

const isZombie = async (pid: number) => {
  const stat = await readOrUndefined(`/proc/${pid}/stat`)
  if (stat === undefined) return true
  const text = stat.toString("utf8")
  return text.slice(text.lastIndexOf(")") + 2).startsWith("Z")
}

/** Whether an environment block (`NAME=value\0…`) holds exactly the variable `needle` (`NAME=value\0`). */
const holds = (environ: Buffer, needle: Buffer) => {
  const first = environ.indexOf(needle)
  return first === 0 || (first > 0 && environ[first - 1] === 0)
}

/** The value of `name` in an environment block, if it is set. */
const valueIn = (environ: Buffer, name: string): string | undefined => {
  // A leading NUL makes the first variable findable like the others.
  const text = Buffer.concat([Buffer.from([0]), environ])
  const needle = Buffer.from(`\0${name}=`)
  const at = text.indexOf(needle)
  if (at < 0) return undefined
  const end = text.indexOf(0, at + needle.length)
  return text.subarray(at + needle.length, end < 0 ? text.length : end).toString("utf8")
}

/** One pass over the process table: what `pick` finds in each live process's environment (ours left out). */
const scanEnvironments = async <A>(pick: (environ: Buffer) => A | undefined): Promise<Array<readonly [number, A]>> => {
  const entries = await fs.readdir("/proc").catch(() => [] as string[])
  const found: Array<readonly [number, A]> = []
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return
      const environ = await readOrUndefined(`/proc/${entry}/environ`)
      const picked = environ === undefined ? undefined : pick(environ)
      if (picked !== undefined && !(await isZombie(Number(entry)))) found.push([Number(entry), picked])
    })
  )
  return found
}

/** The pids (other than ours) whose environment contains `name=value`. */
export const pidsWithEnvironment = async (name: string, value: string): Promise<Array<number>> => {
  const needle = Buffer.from(`${name}=${value}\0`)
  return (await scanEnvironments((environ) => (holds(environ, needle) ? true : undefined))).map(([pid]) => pid)
}

/** Every value `name` has in the environment of a live process (other than ours), in one pass over the table. */
export const environmentValues = async (name: string): Promise<Set<string>> =>
  new Set((await scanEnvironments((environ) => valueIn(environ, name))).map(([, value]) => value))

/** Our own children (of every thread) whose environment contains `name=value`. */
export const childrenWithEnvironment = async (name: string, value: string): Promise<Array<number>> => {
  const needle = Buffer.from(`${name}=${value}\0`)
  const tasks = await fs.readdir(`/proc/${process.pid}/task`).catch(() => [] as string[])
  const lists = await Promise.all(tasks.map((task) => fs.readFile(`/proc/${process.pid}/task/${task}/children`, "utf8").catch(() => "")))
  const children = [...new Set(lists.flatMap((list) => list.split(" ").filter((entry) => entry !== "").map(Number)))]
  const found: number[] = []
  await Promise.all(children.map(async (pid) => {
    const environ = await readOrUndefined(`/proc/${pid}/environ`)
    if (environ === undefined) return
    if (holds(environ, needle) && !(await isZombie(pid))) found.push(pid)
  }))
  return found
}

/** When the process started, in clock ticks since boot (field 22 of /proc/<pid>/stat). */
export const startTimeOf = (pid: number): number | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    const value = Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[19])
    return Number.isFinite(value) ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * The process recorded as `pid` (and, when known, started at `startTime`) still runs. The start time
 * tells a reused pid from the original process after a crash.
 */
export const isSameProcess = (pid: unknown, startTime: unknown) =>
  typeof pid === "number" && isAlive(pid) && (typeof startTime !== "number" || startTimeOf(pid) === startTime)

export const isAlive = (pid: number) => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** True while any process of the group exists (zombies included until reaped). */
export const groupIsAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

export const signal = (pid: number, name: NodeJS.Signals) => {
  try {
    process.kill(pid, name)
  } catch {
    // Already gone, or not ours: nothing to do.
  }
}

let ownGroup: number | undefined
export const ownProcessGroup = async () => (ownGroup ??= (await processGroupOf(process.pid)) ?? process.pid)

/** The inode of a process's pid namespace, or undefined when it is gone. */
export const pidNamespaceOf = (pid: number): number | undefined => {
  try {
    const match = /^pid:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/ns/pid`))
    return match === null ? undefined : Number(match[1])
  } catch {
    return undefined
  }
}

/** The children of `pid` (of its main thread), in no particular order. */
export const childrenOf = (pid: number): Array<number> => {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    return tasks.split(" ").filter((entry) => entry !== "").map(Number)
  } catch {
    return []
  }
}
