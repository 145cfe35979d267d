import * as fs from "node:fs"
import { isAlive } from "./daemon.js"

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
 * The pids the fake wrote, as seen here (call it while they run): through its namespace when it was
 * confined, each pid must belong to a live member of it (a pid nothing maps to throws).
 */
export const fakeCodexPids = (pidfile: string) => {
  const listed = fs.readFileSync(pidfile, "utf8").trim().split("\n").map(Number)
  const namespace = fakeNamespace(pidfile)
  if (namespace === undefined) return listed
  const members = namespaceMembers(namespace)
  return listed.map((inner) => {
    const outer = members.find((pid) => innermostPid(pid) === inner)
    if (outer === undefined) throw new Error(`No live process of ${namespace} has pid ${inner} there.`)
    return outer
  })
}

/** What is still alive of `pids` and, for a confined fake, of anything else in its namespace. */
export const leftBehind = (pidfile: string, pids: ReadonlyArray<number>) => {
  const namespace = fakeNamespace(pidfile)
  return [...new Set([...pids.filter(isAlive), ...(namespace === undefined ? [] : namespaceMembers(namespace))])]
}
