import * as FileSystem from "@effect/platform/FileSystem"
import { Clock, Context, Duration, Effect, Either, Exit, Fiber, Option } from "effect"
import { createHash } from "node:crypto"
import * as path from "node:path"
import { StringDecoder } from "node:string_decoder"
import { type ChecksComparison, type CommandOutcome, compareChecks, excerptCollector, type StateChecks } from "../../domain/checks/outcomes.js"
import type { ApprovedCommand } from "../../domain/contracts/payloads.js"
import { withoutWorkspaceTraces } from "../../domain/review/anonymize.js"
import { FileStore } from "../FileStore.js"
import { Git } from "../Git.js"
import { LinkSafeFiles } from "../platform/LinkSafeFiles.js"
import { NodeFilesLive } from "../platform/nodeFiles.js"
import { ProcessRunner } from "../ProcessRunner.js"
import { Settings } from "../Settings.js"
import { type MaterialisedWorkspace, Workspace, type WorkspacePlan } from "../Workspace.js"
import { sandboxInvocation, type SandboxInvocation } from "./sandbox.js"
import { type StateChanges, writeChanges } from "./stateChanges.js"

export type { StateChanges } from "./stateChanges.js"

/** Where the copies are made, below the cache (which no agent can read); each is removed when its checks end. */
export const CHECKS_DIRECTORY = "checks"
const STATE_PREFIX = "state-"
/** States checked at once across all runs: each runs its commands one after the other. */
export const MAX_PARALLEL_STATES = 3
/** Finished start and Claude states kept for the other models of the same start. */
const SHARED_KEPT = 32

/** The approved commands of a run and their time limit, as its coordinator request records them. */
export interface RunChecks {
  readonly checks: ReadonlyArray<ApprovedCommand>
  readonly setup: ReadonlyArray<ApprovedCommand>
  readonly time_limit_seconds: number
}

/** Claude's result as a state: the commits its thread went between, its patch (rebuilt from the transcript), or why neither can be used. */
export type ClaudeState =
  | { readonly kind: "commits"; readonly repository: string; readonly from: string; readonly to: string }
  | { readonly kind: "patch" }
  | { readonly kind: "unavailable"; readonly reason: string }

export interface RunChecksInput {
  readonly plan: WorkspacePlan
  readonly claude: ClaudeState
  readonly claudePatch: string
  readonly codex: MaterialisedWorkspace
  /** The paths each result changed, to name those a check may run or read. */
  readonly changedFiles: { readonly claude: ReadonlyArray<string>; readonly codex: ReadonlyArray<string> }
  readonly commands: RunChecks
  readonly runTag: string
  readonly hiddenRoots: ReadonlyArray<string>
}

export interface StateRequest {
  /** For the log: `start`, `claude` or `codex`. */
  readonly name: string
  readonly plan: WorkspacePlan
  readonly changes: StateChanges
  readonly checks: ReadonlyArray<ApprovedCommand>
  readonly setup: ReadonlyArray<ApprovedCommand>
  readonly timeLimitSeconds: number
  /** Tags the Codex processes, so the run's sweep finds them. */
  readonly runTag: string
  readonly hiddenRoots: ReadonlyArray<string>
}

const minutes = (seconds: number) =>
  seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? "" : "s"}` : `${seconds} seconds`

/**
 * The command as Claude Code's Bash tool ran it, in bash, given as an argument (never pasted into a
 * script). Its output goes through a pipe: inside the sandbox the standard streams are sockets, on which
 * Node's asynchronous writes are lost when the process ends; `pipefail` keeps the command's exit code.
 */
const shellFor = (command: string) =>
  ["/bin/bash", "-c", "set -o pipefail; /bin/bash -c \"$1\" 2>&1 < /dev/null | /bin/cat", "codex-replay-check", command]

/**
 * How Codex is started for a command. A command without network runs in a network namespace with no
 * interface up, under a sandbox whose own network filter is open: that filter refuses `send` on every
 * socket, a local pipe between two processes included, so Node's child processes (`node --test`,
 * vitest, jest) would lose their output. Where the machine gives no network namespace, Codex's
 * filter closes the network instead.
 */
interface Launchers {
  readonly withNetwork: string
  readonly withoutNetwork: string | undefined
}

const notRun = (command: ApprovedCommand, reason: string): CommandOutcome => ({
  command: command.command,
  directory: command.directory,
  status: "could_not_run",
  exit_code: null,
  reason,
  excerpt: "",
  elapsed_ms: 0
})

/** How an ended command is counted: 127 and 126 are the shell's "not found" and "not executable". */
const outcomeOf = (command: ApprovedCommand, exit: { exitCode: number | null; signal: string | null }, excerpt: string, elapsed: number): CommandOutcome => {
  const base = { command: command.command, directory: command.directory, excerpt, elapsed_ms: elapsed, exit_code: exit.exitCode }
  if (exit.exitCode === 0) return { ...base, status: "passed", reason: null }
  if (exit.exitCode === 127) return { ...base, status: "could_not_run", reason: "The command was not found in this state (exit code 127)." }
  if (exit.exitCode === 126) return { ...base, status: "could_not_run", reason: "The command could not be executed in this state (exit code 126)." }
  if (exit.exitCode === null) return { ...base, status: "failed", reason: `It was ended by ${exit.signal ?? "a signal"}.` }
  return { ...base, status: "failed", reason: null }
}

/**
 * Runs the approved checks on a state of a replay (docs/checks.md): a fresh copy of the start with the
 * state's changes applied, made below the cache where no agent reaches; the approved set-up commands
 * (network open), then the checks (network closed), each under `codex sandbox` with writes confined to
 * the copy, within its time limit, its output kept as a bounded excerpt scrubbed of the copy's path.
 * Never fails: what stops a state from being checked is each command's `could not run`, with the reason.
 * The start and Claude's result are checked once per start and shared by every model's run.
 */
export class CheckRunner extends Effect.Service<CheckRunner>()("codex-replay/CheckRunner", {
  scoped: Effect.gen(function*() {
    const files = yield* FileStore
    const processes = yield* ProcessRunner
    const workspaces = yield* Workspace
    const settings = yield* Settings
    const git = yield* Git
    const platform = Context.make(FileSystem.FileSystem, yield* FileSystem.FileSystem).pipe(Context.add(LinkSafeFiles, yield* LinkSafeFiles))
    const states = yield* Effect.makeSemaphore(MAX_PARALLEL_STATES)
    const root = path.join(settings.cacheRoot, CHECKS_DIRECTORY)

    /**
     * The copies of a daemon that died while checking (`state-<pid>-…` of a process that is gone): its
     * checks died with it (`dieWithParent`), its copies are removed here. Other daemons' copies stay.
     */
    yield* Effect.gen(function*() {
      for (const name of yield* files.listNames(root)) {
        const owner = /^state-(\d+)-/.exec(name)?.[1]
        if (owner !== undefined && !processes.isAlive(Number(owner))) yield* files.remove(path.join(root, name))
      }
    }).pipe(Effect.ignore)

    const elapsedSince = (started: number) => Effect.map(Clock.currentTimeMillis, (now) => now - started)

    /** One command in the sandbox; a timeout interrupts it, which ends its process group and pid namespace. */
    const runCommand = (
      invocation: SandboxInvocation,
      launchers: Launchers,
      request: StateRequest,
      places: ReadonlyArray<string>,
      command: ApprovedCommand,
      network: boolean
    ) =>
      Effect.gen(function*() {
        const copy = places[0]!
        const directory = yield* files.resolveInside(copy, command.directory).pipe(Effect.option)
        if (Option.isNone(directory) || !(yield* files.isDirectory(directory.value))) {
          return notRun(command, `The directory ${command.directory} does not exist in this state.`)
        }
        const started = yield* Clock.currentTimeMillis
        const collector = excerptCollector()
        const decoder = new StringDecoder("utf8")
        // Codex's own complaints (a sandbox that cannot start), kept apart from the command's output.
        const complaints: Array<string> = []
        // Without network: in a network namespace of its own when the machine allows one (see Launchers).
        const isolated = !network && launchers.withoutNetwork !== undefined
        const ended = yield* processes.run({
          command: network ? launchers.withNetwork : launchers.withoutNetwork ?? launchers.withNetwork,
          args: [...invocation.argumentsFor(directory.value, network || isolated), "--", ...shellFor(command.command)],
          cwd: directory.value,
          env: invocation.environmentFor(network),
          tag: request.runTag,
          onStdout: (chunk) => collector.push(decoder.write(chunk)),
          onLine: (_stream, line) => Effect.sync(() => void (complaints.length < 20 && complaints.push(line.slice(0, 500))))
        }).pipe(Effect.timeoutOption(Duration.seconds(request.timeLimitSeconds)), Effect.either)
        collector.push(decoder.end())
        const failed = Either.isRight(ended) && Option.isSome(ended.right) && ended.right.value.exitCode !== 0
        const said = failed ? complaints.filter((line) => !/^WARNING: proceeding/.test(line)) : []
        const excerpt = withoutWorkspaceTraces(
          [collector.finish(), ...said.map((line) => `codex sandbox: ${line}`)].filter((part) => part !== "").join("\n"),
          places
        )
        const elapsed = yield* elapsedSince(started)
        if (Either.isLeft(ended)) return { ...notRun(command, `It could not be started: ${ended.left.message}`), elapsed_ms: elapsed }
        if (Option.isNone(ended.right)) {
          return {
            ...notRun(command, `It did not finish within ${minutes(request.timeLimitSeconds)}; it was stopped.`),
            status: "timed_out" as const,
            excerpt,
            elapsed_ms: elapsed
          }
        }
        return outcomeOf(command, ended.right.value, excerpt, elapsed)
      })

    /** Everything of one state, in a private directory removed when it ends. */
    const checkState = (request: StateRequest): Effect.Effect<StateChecks> =>
      Effect.scoped(Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const unrunnable = (reason: string) =>
          Effect.map(elapsedSince(started), (elapsed): StateChecks => ({
            setup: request.setup.map((command) => notRun(command, reason)),
            checks: request.checks.map((command) => notRun(command, reason)),
            elapsed_ms: elapsed
          }))
        if (request.changes.kind === "unavailable") return yield* unrunnable(request.changes.reason)
        yield* files.ensurePrivateDirectory(root)
        const directory = yield* files.temporaryDirectory(root, `${STATE_PREFIX}${process.pid}-`)
        const made = yield* workspaces.materialise(directory, request.plan, request.runTag, "copy").pipe(Effect.either)
        if (Either.isLeft(made)) return yield* unrunnable(`A fresh copy of the state could not be made: ${made.left.message}`)
        const copy = made.right.directory
        const applied = yield* writeChanges(request.changes, made.right, path.join(directory, "changes.patch")).pipe(
          Effect.provideService(Git, git),
          Effect.provideService(FileStore, files),
          Effect.either
        )
        if (Either.isLeft(applied)) return yield* unrunnable(`The result's changes could not be applied to a fresh copy of the start: ${applied.left.message}`)
        const scratch = path.join(directory, "tmp")
        const codexHome = path.join(directory, "codex-home")
        yield* files.ensurePrivateDirectory(scratch)
        yield* files.ensurePrivateDirectory(codexHome)
        const invocation = yield* sandboxInvocation(settings.codexCliPath ?? "codex", processes.environment, {
          copy,
          scratch,
          codexHome,
          hiddenRoots: request.hiddenRoots
        }).pipe(Effect.provide(platform), Effect.either)
        if (Either.isLeft(invocation)) return yield* unrunnable(invocation.left)
        // A daemon killed meanwhile takes its checks with it: nothing of a check outlives the daemon.
        const launchers: Launchers = {
          withNetwork: yield* processes.confinedLauncher(invocation.right.executable, directory, { dieWithParent: true }),
          withoutNetwork: processes.networkIsolationWorks()
            ? yield* processes.confinedLauncher(invocation.right.executable, directory, { withoutNetwork: true, dieWithParent: true })
            : undefined
        }
        const realCopy = Option.getOrElse(yield* Effect.orElseSucceed(files.realPath(copy), () => Option.none<string>()), () => copy)
        const places = [copy, realCopy, scratch, directory]
        const run = (command: ApprovedCommand, network: boolean) =>
          runCommand(invocation.right, launchers, request, places, command, network)
        const probe = yield* run({ command: "exit 0", directory: "." }, false)
        if (probe.status !== "passed") {
          const detail = probe.excerpt.trim() === "" ? probe.reason ?? `exit code ${probe.exit_code}` : probe.excerpt.trim().split("\n").slice(-3).join(" ")
          return yield* unrunnable(`Codex's sandbox could not start here: ${detail}`)
        }
        const setup: Array<CommandOutcome> = []
        let failedSetup: CommandOutcome | undefined
        for (const command of request.setup) {
          if (failedSetup !== undefined) {
            setup.push(notRun(command, `An earlier set-up command, \`${failedSetup.command}\`, did not succeed.`))
            continue
          }
          const outcome = yield* run(command, true)
          setup.push(outcome)
          if (outcome.status !== "passed") failedSetup = outcome
        }
        const setupFailure = failedSetup === undefined
          ? undefined
          : `The set-up command \`${failedSetup.command}\` ${failedSetup.status === "timed_out" ? "timed out" : failedSetup.exit_code === null ? "could not run" : `failed (exit code ${failedSetup.exit_code})`}.`
        const checks: Array<CommandOutcome> = []
        for (const command of request.checks) {
          checks.push(setupFailure === undefined ? yield* run(command, false) : notRun(command, setupFailure))
        }
        return { setup, checks, elapsed_ms: yield* elapsedSince(started) }
      })).pipe(
        states.withPermits(1),
        Effect.catchAll((error) =>
          Effect.succeed<StateChecks>({
            setup: request.setup.map((command) => notRun(command, `The state could not be prepared: ${error.message}`)),
            checks: request.checks.map((command) => notRun(command, `The state could not be prepared: ${error.message}`)),
            elapsed_ms: 0
          })),
        Effect.withSpan("CheckRunner.checkState", { attributes: { state: request.name } })
      )

    // -------------------------------------------------------------------------------------------
    // The start and Claude's result, once per start

    interface Shared {
      readonly fiber: Fiber.RuntimeFiber<StateChecks>
      waiters: number
    }
    const shared = new Map<string, Shared>()
    yield* Effect.addFinalizer(() => Effect.forEach([...shared.values()], (entry) => Fiber.interrupt(entry.fiber), { discard: true }))

    /** Keeps the finished entries to the newest `SHARED_KEPT`. */
    const trim = () => {
      const finished = [...shared.entries()].filter(([, entry]) => entry.waiters === 0)
      for (const [key] of finished.slice(0, Math.max(0, finished.length - SHARED_KEPT))) shared.delete(key)
    }

    /**
     * `checkState` shared by every run that asks for the same state with the same commands: the first
     * starts it, the others wait for it. When every run waiting for it was interrupted, it is stopped.
     */
    const checkShared = (key: string, request: StateRequest) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const existing = shared.get(key)
          // Forked interruptible: a fiber forked here would otherwise inherit the mask and never stop.
          const entry = existing ?? { fiber: yield* Effect.forkDaemon(Effect.interruptible(checkState(request))), waiters: 0 }
          if (existing === undefined) shared.set(key, entry)
          entry.waiters += 1
          return yield* restore(Fiber.join(entry.fiber)).pipe(
            Effect.onExit((exit) =>
              Effect.suspend(() => {
                entry.waiters -= 1
                if (entry.waiters > 0) return Effect.void
                if (Exit.isSuccess(exit)) return Effect.sync(trim)
                shared.delete(key)
                return Fiber.interrupt(entry.fiber)
              }))
          )
        })
      )

    const stateKey = (request: StateRequest, identity: unknown) =>
      createHash("sha256").update(JSON.stringify({
        plan: request.plan,
        identity,
        checks: request.checks,
        setup: request.setup,
        limit: request.timeLimitSeconds
      })).digest("hex")

    /**
     * The checks of one run on its three states at once — the start and Claude's result shared with the
     * start's other runs — compared side by side; null when no check was approved.
     */
    const checkRun = (input: RunChecksInput): Effect.Effect<ChecksComparison | null> =>
      Effect.gen(function*() {
        const { checks, setup, time_limit_seconds } = input.commands
        if (checks.length === 0) return null
        const base = { plan: input.plan, checks, setup, timeLimitSeconds: time_limit_seconds, runTag: input.runTag, hiddenRoots: input.hiddenRoots }
        const claude: StateChanges = input.claude.kind === "patch" ? { kind: "patch", patch: input.claudePatch } : input.claude
        const claudeIdentity = input.claude.kind === "patch"
          ? createHash("sha256").update(input.claudePatch).digest("hex")
          : input.claude
        const [start, claudeChecks, codex] = yield* Effect.all([
          checkSharedState({ ...base, name: "start", changes: { kind: "start" } }, "start"),
          checkSharedState({ ...base, name: "claude", changes: claude }, claudeIdentity),
          checkState({ ...base, name: "codex", changes: { kind: "workspace", workspace: input.codex } })
        ], { concurrency: "unbounded" })
        return compareChecks({
          timeLimitSeconds: time_limit_seconds,
          setup,
          commands: checks,
          start,
          claude: claudeChecks,
          codex,
          changedFiles: input.changedFiles
        })
      })

    const checkSharedState = (request: StateRequest, identity: unknown) => {
      const key = stateKey(request, identity)
      // Its processes carry a tag of their own: the end of one run must not sweep what another waits for.
      return checkShared(key, { ...request, runTag: `checks-${key.slice(0, 20)}` })
    }

    return {
      checkRun,
      checkState,
      /** A state shared by the runs of one start; `identity` names its changes (a commit, a patch's digest). */
      checkSharedState
    } as const
  }),
  dependencies: [FileStore.Default, Workspace.Default, NodeFilesLive]
}) {}
