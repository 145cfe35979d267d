import * as fs from "node:fs"
import { startTimeOf } from "../../src/services/platform/procfs.js"
import { isAlive } from "./daemon.js"
import { describeProcess } from "./stuckProcess.js"

/**
 * The fake codex writes its pid and its tool command's pid to FAKE_CODEX_PIDFILE, as it sees them, and
 * its pid namespace (`pid:[inode]`) to `<pidfile>.ns` just before. A confined fake is the first process
 * of a namespace of its own, so it sees itself as pid 1: its pids mean something here only once mapped
 * through that namespace, and "nothing left behind" means "nothing left in that namespace".
 */

const namespaceOf = (pid: number | "self") => {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/pid`)
  } catch {
    return undefined
  }
}

const processes = () => fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).map(Number)

/** The pid `process` has in its innermost namespace (the last number of its `NSpid:` line). */
const innermostPid = (pid: number) => {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((entry) => entry.startsWith("NSpid:")) ?? ""
    return Number(line.trim().split(/\s+/).at(-1))
  } catch {
    return undefined
  }
}

/** The fake's pid namespace when it is not ours (it was confined), read from `<pidfile>.ns`. */
export const fakeNamespace = (pidfile: string) => {
  let recorded: string
  try {
    recorded = fs.readFileSync(`${pidfile}.ns`, "utf8").trim()
  } catch {
    return undefined
  }
  return recorded === namespaceOf("self") ? undefined : recorded
}

/** Live processes (pids as seen here) that are members of pid namespace `namespace`. */
export const namespaceMembers = (namespace: string) =>
  processes().filter((pid) => namespaceOf(pid) === namespace && isAlive(pid))

/**
 * What `fakeCodexPids` saw, by pidfile: the start time of each pid (a pid reused later by another process is
 * not the fake's) and the namespace's init (outer pid and start time). A pid namespace's inode number is reused
 * once it is gone, so a namespace whose init has ended may be another test's by now: its members count only
 * while the init seen here still runs (the kernel ends every member before the init itself ends).
 */
const seen = new Map<number, number | undefined>()
const inits = new Map<string, { readonly pid: number; readonly start: number | undefined }>()

const isSame = (pid: number) => isAlive(pid) && (!seen.has(pid) || seen.get(pid) === startTimeOf(pid))

/**
 * The pids the fake wrote, as seen here (call it while they run): through its namespace when it was
 * confined, each pid must belong to a live member of it (a pid nothing maps to throws).
 */
export const fakeCodexPids = (pidfile: string) => {
  const listed = fs.readFileSync(pidfile, "utf8").trim().split("\n").map(Number)
  const namespace = fakeNamespace(pidfile)
  if (namespace === undefined) {
    for (const pid of listed) seen.set(pid, startTimeOf(pid))
    return listed
  }
  const members = namespaceMembers(namespace)
  const init = members.find((pid) => innermostPid(pid) === 1)
  if (init !== undefined) inits.set(pidfile, { pid: init, start: startTimeOf(init) })
  return listed.map((inner) => {
    const outer = members.find((pid) => innermostPid(pid) === inner)
    if (outer === undefined) throw new Error(`No live process of ${namespace} has pid ${inner} there.`)
    seen.set(outer, startTimeOf(outer))
    return outer
  })
}

/** Whether the namespace init `fakeCodexPids` saw for `pidfile` still runs (true when it saw none). */
const namespaceLives = (pidfile: string) => {
  const init = inits.get(pidfile)
  return init === undefined || (isAlive(init.pid) && startTimeOf(init.pid) === init.start)
}

/** What is still alive of `pids` and, for a confined fake whose namespace still exists, of anything else in it. */
export const leftBehind = (pidfile: string, pids: ReadonlyArray<number>) => {
  const namespace = fakeNamespace(pidfile)
  const members = namespace === undefined || !namespaceLives(pidfile) ? [] : namespaceMembers(namespace)
  return [...new Set([...pids.filter(isSame), ...members])]
}

/** `leftBehind`, each described (command line, threads, children, files) with its namespace, for a failure message. */
export const describeLeftBehind = (pidfile: string, pids: ReadonlyArray<number>) =>
  leftBehind(pidfile, pids).map((pid) => `${describeProcess(pid)}\n  namespace ${namespaceOf(pid) ?? "?"}`)
