import { Effect, Option } from "effect"
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as path from "node:path"
import { FileStore } from "../FileStore.js"
import { childrenOf, isSameProcess, pidNamespaceOf, signal, startTimeOf } from "../platform/procfs.js"

/**
 * Every Codex child runs as the first process of a pid namespace of its own (`unshare`). Nothing it
 * starts can leave that namespace: not with `setsid`, not by dropping an environment variable, not
 * through a sandbox helper that lost its parent. When Codex ends, or when its first process is killed,
 * the kernel kills everything left in the namespace. The daemon records the namespace (the init's pid,
 * start time and namespace inode) in the run directory, so a later daemon can end it after a crash.
 */

const UNSHARE_ARGS = ["--pid", "--fork", "--kill-child", "--mount-proc"]
const USER_ARGS = ["--user", "--map-current-user"]

let probed: ReadonlyArray<string> | null | undefined

/** The `unshare` arguments that work on this machine (root needs no user namespace), or null. */
export const confinementArguments = (): ReadonlyArray<string> | null => {
  if (probed !== undefined) return probed
  probed = null
  if (process.platform !== "linux") return probed
  const candidates = process.getuid?.() === 0 ? [UNSHARE_ARGS, [...USER_ARGS, ...UNSHARE_ARGS]] : [[...USER_ARGS, ...UNSHARE_ARGS]]
  for (const args of candidates) {
    const result = spawnSync("unshare", [...args, "--", "/bin/sh", "-c", "exit 0"], { stdio: "ignore", timeout: 5000 })
    if (result.status === 0) {
      probed = args
      break
    }
  }
  return probed
}

let networkProbed: boolean | undefined

/**
 * Whether a pid namespace can also get a network namespace of its own (`unshare --net`): one with no
 * interface up, so nothing in it reaches any network, while every socket call still works (a local
 * pipe between two processes included, which the network filter of Codex's sandbox breaks).
 */
export const networkIsolationWorks = (): boolean => {
  if (networkProbed !== undefined) return networkProbed
  const args = confinementArguments()
  networkProbed = args !== null &&
    spawnSync("unshare", [...args, "--net", "--", "/bin/sh", "-c", "exit 0"], { stdio: "ignore", timeout: 5000 }).status === 0
  return networkProbed
}

let parentDeathProbed: boolean | undefined

/** Whether `setpriv --pdeathsig` works here: a process that gets SIGKILL when the daemon that started it dies. */
const parentDeathWorks = (): boolean => {
  if (parentDeathProbed === undefined) {
    parentDeathProbed = spawnSync("setpriv", ["--pdeathsig", "KILL", "--", "/bin/sh", "-c", "exit 0"], { stdio: "ignore", timeout: 5000 }).status === 0
  }
  return parentDeathProbed
}

export interface LauncherOptions {
  /** In a network namespace of its own, with no interface up (see `networkIsolationWorks`). */
  readonly withoutNetwork?: boolean
  /** Killed, with its namespace, when the daemon dies (`setpriv --pdeathsig`), where the machine allows. */
  readonly dieWithParent?: boolean
}

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`

/**
 * A launcher script in `directory` that starts `executable` confined, with the arguments it is given;
 * `executable` itself when confinement is unavailable. One script per executable, written once.
 */
export const launcherFor = (executable: string, directory: string, options: LauncherOptions = {}) =>
  Effect.gen(function*() {
    const args = confinementArguments()
    if (args === null) return executable
    const files = yield* FileStore
    const all = options.withoutNetwork === true ? [...args, "--net"] : args
    const guard = options.dieWithParent === true && parentDeathWorks() ? "setpriv --pdeathsig KILL -- " : ""
    const name = `launch-${createHash("sha256").update(`${executable}\0${all.join(" ")}\0${guard}`).digest("hex").slice(0, 16)}`
    const target = path.join(directory, name)
    const text = `#!/bin/sh\nexec ${guard}unshare ${all.join(" ")} -- ${shellQuote(executable)} "$@"\n`
    const existing = yield* Effect.option(files.readBounded(target, 64 * 1024))
    if (Option.getOrUndefined(existing) !== text) yield* files.writeTextAtomic(target, text, 0o700)
    return target
  })

const ownNamespace = pidNamespaceOf(process.pid)

export interface ProcessIdentity {
  readonly pid: number
  readonly start_time: number
}

/** What a later daemon needs to end one Codex child and everything it started. */
export interface ConfinedAttempt {
  /** The process we started (the launcher, then `unshare`, or Codex itself when not confined). */
  readonly launcher: ProcessIdentity
  /** The first process of the namespace (Codex), when confined. */
  readonly init: ProcessIdentity | null
  /** The inode of that pid namespace, when confined. */
  readonly namespace: number | null
}

const identity = (pid: number): ProcessIdentity | undefined => {
  const start = startTimeOf(pid)
  return start === undefined ? undefined : { pid, start_time: start }
}

/** Describes the confined Codex started as `launcherPid`; undefined until its namespace exists. */
export const describeAttempt = (launcherPid: number): ConfinedAttempt | undefined => {
  const launcher = identity(launcherPid)
  if (launcher === undefined) return undefined
  if (confinementArguments() === null) return { launcher, init: null, namespace: null }
  for (const child of childrenOf(launcherPid)) {
    const namespace = pidNamespaceOf(child)
    const init = identity(child)
    if (namespace !== undefined && namespace !== ownNamespace && init !== undefined) return { launcher, init, namespace }
  }
  return undefined
}

const matches = (recorded: ProcessIdentity | null) =>
  recorded !== null && isSameProcess(recorded.pid, recorded.start_time)

/**
 * SIGKILLs the attempt's namespace init (the kernel then kills every process in the namespace, nested
 * sandbox namespaces included) and its launcher, each only while it is still the recorded process.
 * Answers whether anything of the attempt may still be alive.
 */
export const killAttempt = (attempt: ConfinedAttempt): boolean => {
  const init = attempt.init
  if (init !== null && matches(init) && pidNamespaceOf(init.pid) === attempt.namespace) signal(init.pid, "SIGKILL")
  if (matches(attempt.launcher)) signal(attempt.launcher.pid, "SIGKILL")
  return matches(attempt.launcher) || (init !== null && matches(init))
}

// ---------------------------------------------------------------------------------------------
// The record in the run directory

export const ATTEMPTS_DIRECTORY = "processes"

const recordPath = (runDirectory: string, attemptId: string) => path.join(runDirectory, ATTEMPTS_DIRECTORY, `${attemptId}.json`)

/** Writes the record atomically (0600, in a 0700 folder). */
export const recordAttempt = (runDirectory: string, attemptId: string, attempt: ConfinedAttempt) =>
  Effect.flatMap(FileStore, (files) => files.writeTextAtomic(recordPath(runDirectory, attemptId), JSON.stringify(attempt)))

export const forgetAttempt = (runDirectory: string, attemptId: string) =>
  Effect.flatMap(FileStore, (files) => Effect.ignore(files.remove(recordPath(runDirectory, attemptId))))

const isIdentity = (value: unknown): value is ProcessIdentity =>
  typeof value === "object" && value !== null &&
  Number.isInteger((value as ProcessIdentity).pid) && Number.isInteger((value as ProcessIdentity).start_time)

const parseAttempt = (text: string): ConfinedAttempt | undefined => {
  try {
    const value = JSON.parse(text) as Record<string, unknown>
    if (!isIdentity(value.launcher)) return undefined
    const init = isIdentity(value.init) ? value.init : null
    const namespace = typeof value.namespace === "number" ? value.namespace : null
    return { launcher: value.launcher, init, namespace }
  } catch {
    return undefined
  }
}

/** Every attempt recorded in the run directory, with the file that records it. */
export const recordedAttempts = (runDirectory: string) =>
  Effect.gen(function*() {
    const files = yield* FileStore
    const directory = path.join(runDirectory, ATTEMPTS_DIRECTORY)
    const entries = yield* Effect.orElseSucceed(files.listNames(directory), (): Array<string> => [])
    const found: Array<{ readonly file: string; readonly attempt: ConfinedAttempt }> = []
    for (const entry of entries.filter((name) => name.endsWith(".json")).sort()) {
      const file = path.join(directory, entry)
      const text = yield* Effect.orElseSucceed(files.readBounded(file, 64 * 1024), () => "")
      const attempt = parseAttempt(text)
      if (attempt !== undefined) found.push({ file, attempt })
    }
    return found
  })
