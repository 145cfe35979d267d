import { Duration, Effect, Layer, Queue, Schedule } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as readline from "node:readline"
import { type SpawnFailed, spawnFailed } from "../domain/errors.js"
import { RUN_TAG_VARIABLE } from "../domain/product.js"
import { FileStore } from "./FileStore.js"
import { watchAttempt } from "./internal/attemptWatch.js"
import { killAttempt, launcherFor, type LauncherOptions, networkIsolationWorks, recordedAttempts } from "./internal/confinement.js"
import { type PortReservation, reservePort, type StartedDaemon } from "./internal/daemonProcess.js"
import { packagePath } from "./internal/packageInfo.js"
import { type EnvironmentVariables, ProcessEnvironment } from "./platform/environment.js"
import { withAppendDescriptor } from "./platform/nodeFiles.js"
import * as procfs from "./platform/procfs.js"

export type OutputStream = "stdout" | "stderr"

export interface ProcessSpec {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd?: string
  /** The child's whole environment; defaults to ours. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Tags the child and every descendant, so `sweepTag` can find them later. */
  readonly tag?: string
  readonly stdin?: string
  /** Receives each output line while the child runs, in order. */
  readonly onLine?: (stream: OutputStream, line: string) => Effect.Effect<void>
  /**
   * Receives stdout as it arrives, in pieces, instead of as lines (`onLine` then sees stderr only): for
   * output that may be too large to hold, which the receiver bounds as it reads.
   */
  readonly onStdout?: (chunk: Buffer) => void
}

export interface ProcessExit {
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
}

const POLL = Duration.millis(25)
const MAX_FREEZE_ROUNDS = 50
const SWEEP_KILL_WITHIN = Duration.seconds(5)

/** Every `POLL` on the Effect clock, for at most `within`; its output is the last value looked at. */
const pollingFor = <A>(within: Duration.DurationInput) =>
  Schedule.identity<A>().pipe(Schedule.addDelay(() => POLL), Schedule.upTo(within))

/** Looks at `done` until it holds or `within` has passed; answers whether it holds. */
const waitUntil = (done: () => boolean, within: Duration.Duration) =>
  Effect.repeat(Effect.sync(done), { schedule: pollingFor(within), until: (holds) => holds })

const makeProcessRunner = (graceMillis: number, files: FileStore, environment: EnvironmentVariables) => {
  const grace = Duration.millis(graceMillis)
  const withFiles = Effect.provideService(FileStore, files)

  const tagged = (tag: string) => Effect.promise(() => procfs.pidsWithEnvironment(RUN_TAG_VARIABLE, tag))

  /** The run tags some live process carries (one pass over the process table). */
  const liveTags = Effect.promise(() => procfs.environmentValues(RUN_TAG_VARIABLE))

  /**
   * Ends every process carrying `tag`. It first stops them all (SIGSTOP, again until no new one
   * appears), so that no shell can react to a child's death by starting the next command, then kills
   * them. Never signals our own process group.
   */
  const sweepTag = Effect.fn("ProcessRunner.sweepTag")(function*(tag: string) {
    const ownGroup = yield* Effect.promise(procfs.ownProcessGroup)
    const stopped = new Set<number>()
    for (let round = 0; round < MAX_FREEZE_ROUNDS; round++) {
      const fresh = (yield* tagged(tag)).filter((pid) => !stopped.has(pid))
      if (fresh.length === 0) break
      for (const pid of fresh) {
        procfs.signal(pid, "SIGSTOP")
        stopped.add(pid)
      }
    }
    // One round kills what still carries the tag (its group too when it leads one); rounds go on until none is left.
    const killRound = Effect.gen(function*() {
      const pids = yield* tagged(tag)
      for (const pid of pids) {
        const group = yield* Effect.promise(() => procfs.processGroupOf(pid))
        if (group !== undefined && group !== ownGroup && group === pid) procfs.signal(-group, "SIGKILL")
        procfs.signal(pid, "SIGKILL")
      }
      return pids.length
    })
    yield* Effect.repeat(killRound, { schedule: pollingFor(SWEEP_KILL_WITHIN), until: (found) => found === 0 })
    return stopped.size
  })

  /**
   * Ends every Codex namespace recorded in the run directory (a run of a daemon that died, or a
   * cancelled one) and removes the records. The records name processes by pid and start time, so a
   * reused pid is never signalled.
   */
  const sweepRecorded = Effect.fn("ProcessRunner.sweepRecorded")(function*(runDirectory: string) {
    const records = yield* withFiles(recordedAttempts(runDirectory))
    for (const { file, attempt } of records) {
      // `killAttempt` signals the namespace and answers whether it still ran.
      yield* Effect.repeat(Effect.sync(() => killAttempt(attempt)), { schedule: pollingFor(SWEEP_KILL_WITHIN), while: (ran) => ran })
      yield* Effect.ignore(files.remove(file))
    }
    return records.length
  })

  const terminateGroup = (child: ChildProcess, tag: string | undefined) =>
    Effect.gen(function*() {
      const pgid = child.pid
      if (pgid === undefined) return
      if (procfs.groupIsAlive(pgid)) {
        procfs.signal(-pgid, "SIGTERM")
        const ended = yield* waitUntil(() => !procfs.groupIsAlive(pgid), grace)
        if (!ended) procfs.signal(-pgid, "SIGKILL")
        yield* waitUntil(() => !procfs.groupIsAlive(pgid), Duration.seconds(2))
      }
      if (tag !== undefined) yield* sweepTag(tag)
    })

  /**
   * Everything from the spawn to the cleanup's installation is uninterruptible, so an interruption
   * can never land in between and leave the child without its group kill; only the wait is restored.
   */
  const run = (spec: ProcessSpec) => Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
    const lines = yield* Queue.unbounded<readonly [OutputStream, string]>()
    const env = { ...(spec.env ?? environment), ...(spec.tag === undefined ? {} : { [RUN_TAG_VARIABLE]: spec.tag }) }
    const child = yield* Effect.try({
      try: () =>
        spawn(spec.command, [...spec.args], {
          cwd: spec.cwd,
          env,
          detached: true,
          stdio: [spec.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"]
        }),
      catch: (error) => spawnFailed(spec.command, error instanceof Error ? error.message : String(error))
    })

    const exited = new Promise<ProcessExit>((resolve) => {
      child.once("exit", (exitCode, signal) => resolve({ exitCode, signal }))
      child.once("error", () => resolve({ exitCode: null, signal: null }))
    })
    const spawnError = new Promise<Error | undefined>((resolve) => {
      child.once("spawn", () => resolve(undefined))
      child.once("error", resolve)
    })
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()))
    for (const stream of ["stdout", "stderr"] as const) {
      const source = child[stream]
      if (source === null) continue
      const onStdout = spec.onStdout
      if (stream === "stdout" && onStdout !== undefined) {
        source.on("data", (chunk: Buffer) => onStdout(chunk))
        continue
      }
      readline.createInterface({ input: source, crlfDelay: Infinity }).on("line", (line) => {
        Queue.unsafeOffer(lines, [stream, line])
      })
    }
    if (spec.stdin !== undefined && child.stdin !== null) {
      child.stdin.on("error", () => undefined)
      child.stdin.end(spec.stdin)
    }

    const deliver = Effect.gen(function*() {
      for (;;) {
        const [stream, line] = yield* Queue.take(lines)
        if (spec.onLine !== undefined) yield* spec.onLine(stream, line)
      }
    })
    const flush = Effect.gen(function*() {
      const rest = yield* Queue.takeAll(lines)
      if (spec.onLine === undefined) return
      for (const [stream, line] of rest) yield* spec.onLine(stream, line)
    })

    const failure = yield* Effect.promise(() => spawnError)
    if (failure !== undefined) return yield* spawnFailed(spec.command, failure.message)

    const exit = yield* Effect.scoped(
      Effect.gen(function*() {
        // Interruptible even when the caller is not (HTTP handlers run uninterruptibly), or closing the scope would wait forever.
        yield* Effect.forkScoped(Effect.interruptible(deliver))
        return yield* restore(Effect.promise(() => exited))
      }).pipe(
        Effect.onExit(() =>
          terminateGroup(child, spec.tag).pipe(
            // Waits for the streams to close, at most two seconds (interruptible, so the timeout can end the wait).
            Effect.zipRight(Effect.timeoutOption(Effect.interruptible(Effect.promise(() => closed)), Duration.seconds(2))),
            Effect.zipRight(flush)
          )
        )
      )
    )
    return exit
  })).pipe(Effect.withSpan("ProcessRunner.run"))

  /** Starts a program that outlives us (a desktop opener), without waiting for it or reading its output. */
  const startDetached = (command: string, args: ReadonlyArray<string>) =>
    Effect.async<void, SpawnFailed>((resume) => {
      // The desktop's opener gets this process's environment (its PATH, DISPLAY), as every child here does.
      const child = spawn(command, [...args], { detached: true, stdio: "ignore", env: { ...environment } })
      child.once("error", (error) => resume(Effect.fail(spawnFailed(command, error.message))))
      child.once("spawn", () => {
        child.unref()
        resume(Effect.void)
      })
    })

  /** The daemon's process, detached in its own group, its output on `log`, the reserved socket as descriptor 3. */
  const spawnDaemon = (reservation: PortReservation, env: Readonly<Record<string, string>>, log: number): StartedDaemon => {
    const { port, socketFd } = reservation
    const inherit = typeof socketFd === "number" && socketFd >= 0
    const child = spawn(process.execPath, [packagePath("bin/codex-replay.js"), "--http"], {
      detached: true,
      stdio: inherit ? ["ignore", log, log, socketFd] : ["ignore", log, log],
      env: {
        ...environment,
        ...env,
        CODEX_REPLAY_CONTROLLER_PORT: String(port),
        CODEX_REPLAY_CONTROLLER_SOCKET_FD: inherit ? "3" : ""
      }
    })
    child.unref()
    let exited = false
    child.once("exit", () => void (exited = true))
    const pid = child.pid
    return { port, pid, exited: () => exited, stop: Effect.sync(() => pid !== undefined && !exited && procfs.signal(-pid, "SIGTERM")) }
  }

  /**
   * Reserves a port (the preferred one when free) and starts `bin/codex-replay.js --http` on it, detached in its own
   * process group, its output appended to `logPath`, handed the reserved listening socket as descriptor 3 and our
   * environment with `env` and the port on top.
   */
  const startDaemon = (preferredPort: number, env: Readonly<Record<string, string>>, logPath: string) =>
    Effect.flatMap(reservePort(preferredPort), (reservation) =>
      Effect.try({
        try: () => {
          try {
            return withAppendDescriptor(logPath, (log) => spawnDaemon(reservation, env, log))
          } finally {
            // Closed whether or not the daemon started: it holds its own copy of the socket.
            reservation.close()
          }
        },
        catch: (error) => spawnFailed("the local controller", error instanceof Error ? error.message : String(error))
      })).pipe(Effect.withSpan("ProcessRunner.startDaemon"))

  /** This process's pid and start time, which together tell it from a later process that reuses the pid. */
  const ownIdentity = Effect.sync(() => ({ pid: process.pid, startTime: procfs.startTimeOf(process.pid) ?? null }))

  /** Our own children whose environment holds `name=value` (a Codex child, found by its attempt's variable). */
  const childrenWith = (name: string, value: string) => Effect.promise(() => procfs.childrenWithEnvironment(name, value))

  /**
   * SIGINTs our children that hold `name=value` and their own children (a confined Codex is the first process of
   * its namespace, below a launcher that ignores SIGINT); answers how many children were found.
   */
  const interruptChildren = Effect.fn("ProcessRunner.interruptChildren")(function*(name: string, value: string) {
    const children = yield* childrenWith(name, value)
    for (const pid of children.flatMap((child) => [child, ...procfs.childrenOf(child)])) procfs.signal(pid, "SIGINT")
    return children.length
  })

  /** SIGSTOPs every process (ours or not) whose environment holds `name=value`, so that none reacts to another's end. */
  const freeze = Effect.fn("ProcessRunner.freeze")(function*(name: string, value: string) {
    for (const pid of yield* Effect.promise(() => procfs.pidsWithEnvironment(name, value))) procfs.signal(pid, "SIGSTOP")
  })

  /**
   * Watches the confined child started with `name=value` in its environment: its namespace is recorded in
   * `runDirectory` as soon as it exists, and `kill` ends it (internal/attemptWatch.ts).
   */
  const watchConfined = (attemptId: string, runDirectory: string | undefined, name: string) =>
    withFiles(watchAttempt(attemptId, runDirectory, childrenWith(name, attemptId)))

  /** A launcher that starts `executable` in a pid namespace of its own, written into `directory`; the executable itself when this machine cannot. */
  const confinedLauncher = (executable: string, directory: string, options?: LauncherOptions) =>
    withFiles(launcherFor(executable, directory, options)).pipe(Effect.orElseSucceed(() => executable))

  return {
    graceMillis,
    environment,
    run,
    startDetached,
    startDaemon,
    ownIdentity,
    isSameProcess: procfs.isSameProcess,
    sweepTag,
    liveTags,
    sweepRecorded,
    isAlive: procfs.isAlive,
    interruptChildren,
    freeze,
    watchConfined,
    confinedLauncher,
    networkIsolationWorks
  } as const
}

const makeWithGrace = (graceMillis: number) =>
  Effect.gen(function*() {
    return makeProcessRunner(graceMillis, yield* FileStore, yield* ProcessEnvironment)
  })

/**
 * Starts children in their own process group, streams their lines while they run, and on
 * interruption (or when the leader exits) ends the whole group: SIGTERM, a grace period, SIGKILL.
 * Processes that left the group but carry the run tag are swept as well. The one process service: it also
 * finds, signals and confines the Codex children (docs/decisions/0004-process-spawning.md).
 */
export class ProcessRunner extends Effect.Service<ProcessRunner>()("codex-replay/ProcessRunner", {
  effect: makeWithGrace(2000),
  dependencies: [FileStore.Default]
}) {
  static readonly withGrace = (graceMillis: number) =>
    Layer.effect(ProcessRunner, Effect.map(makeWithGrace(graceMillis), (runner) => ProcessRunner.make(runner))).pipe(
      Layer.provide(FileStore.Default)
    )
}
