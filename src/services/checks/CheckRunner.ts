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
import { type Cause, minutes, notRun, outcomeOf, shellFor } from "./commands.js"
import { MAX_STATE_CHANGE_BYTES, type StateChanges, writeChanges } from "./stateChanges.js"
import { formatBytes } from "../../domain/report/ceilings.js"

export type { StateChanges } from "./stateChanges.js"

/** Where the copies are made, below the cache (which no agent can read); each is removed when its checks end. */
export const CHECKS_DIRECTORY = "checks"
const STATE_PREFIX = "state-"
/** States checked at once across all runs: each runs its commands one after the other. */
export const MAX_PARALLEL_STATES = 3
/**
 * The least time a state's copy, and the probe that starts its sandbox, may take whatever the commands'
 * own limit: slowed by a busy machine, they would otherwise count against the state (`could not run`,
 * the state's doing) when a user sets a limit of a few seconds for a quick linter.
 */
const MIN_COPY_SECONDS = 60
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
  readonly changedFiles: { readonly claude: ReadonlyArray<string>; readonly codex: ReadonlyArray<string>; readonly complete?: boolean }
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
      network: boolean,
      limitSeconds = request.timeLimitSeconds
    ) =>
      Effect.gen(function*() {
        const copy = places[0]!
        const directory = yield* files.resolveInside(copy, command.directory).pipe(Effect.option)
        if (Option.isNone(directory) || !(yield* files.isDirectory(directory.value))) {
          return notRun(command, `The directory ${command.directory} does not exist in this state.`, "state")
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
        }).pipe(Effect.timeoutOption(Duration.seconds(limitSeconds)), Effect.either)
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
            ...notRun(command, `It did not finish within ${minutes(limitSeconds)}; it was stopped.`),
            status: "timed_out" as const,
            excerpt,
            elapsed_ms: elapsed
          }
        }
        return outcomeOf(command, ended.right.value, excerpt, elapsed)
      })

    /** A fresh copy of the start in `directory`, the state's changes applied; or why not, and whose doing that may be. */
    const prepareCopy = (directory: string, request: StateRequest) =>
      Effect.gen(function*() {
        const made = yield* workspaces.materialise(directory, request.plan, request.runTag, "copy").pipe(Effect.either)
        if (Either.isLeft(made)) return Either.left({ reason: `A fresh copy of the state could not be made: ${made.left.message}`, cause: "replay" as Cause })
        const applied = yield* writeChanges(request.changes, made.right, path.join(directory, "changes.patch")).pipe(
          Effect.provideService(Git, git),
          Effect.provideService(FileStore, files),
          Effect.either
        )
        if (Either.isRight(applied)) return Either.right(made.right)
        const failure = applied.left
        return Either.left(failure._tag === "StateTooLarge"
          ? {
            reason: `This result changes ${formatBytes(failure.bytes)}, past the ${formatBytes(MAX_STATE_CHANGE_BYTES)} a check copy takes.`,
            cause: "state" as Cause
          }
          : {
            reason: `The result's changes could not be applied to a fresh copy of the start: ${failure.message}`,
            // A patch git made from a result's own files applies unless their content prevents it; one
            // rebuilt from a transcript is ours.
            cause: (request.changes.kind === "patch" ? "replay" : "state") as Cause
          })
      })

    /** Everything of one state, in a private directory removed when it ends. */
    const checkState = (request: StateRequest): Effect.Effect<StateChecks> =>
      Effect.scoped(Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const unrunnable = (reason: string, cause: Cause = "replay") =>
          Effect.map(elapsedSince(started), (elapsed): StateChecks => ({
            setup: request.setup.map((command) => notRun(command, reason, cause)),
            checks: request.checks.map((command) => notRun(command, reason, cause)),
            elapsed_ms: elapsed
          }))
        if (request.changes.kind === "unavailable") return yield* unrunnable(request.changes.reason)
        yield* files.ensurePrivateDirectory(root)
        const directory = yield* files.temporaryDirectory(root, `${STATE_PREFIX}${process.pid}-`)
        // Making the copy has a time limit too (a command's, at least MIN_COPY_SECONDS): a result cannot hold a slot by its size.
        const copyLimit = Math.max(request.timeLimitSeconds, MIN_COPY_SECONDS)
        const prepared = yield* prepareCopy(directory, request).pipe(Effect.timeoutOption(Duration.seconds(copyLimit)))
        if (Option.isNone(prepared)) return yield* unrunnable(`The copy of this state was not ready within ${minutes(copyLimit)}.`, "state")
        if (Either.isLeft(prepared.value)) return yield* unrunnable(prepared.value.left.reason, prepared.value.left.cause)
        const copy = prepared.value.right.directory
        const scratch = path.join(directory, "tmp")
        const codexHome = path.join(directory, "codex-home")
        yield* files.ensurePrivateDirectory(scratch)
        yield* files.ensurePrivateDirectory(codexHome)
        const invocation = yield* sandboxInvocation(settings.codexCliPath, processes.environment, {
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
        const run = (command: ApprovedCommand, network: boolean, limitSeconds?: number) =>
          runCommand(invocation.right, launchers, request, places, command, network, limitSeconds)
        // Like the copy, the sandbox's start is not held to a short limit meant for the commands.
        const probe = yield* run({ command: "exit 0", directory: "." }, false, copyLimit)
        if (probe.status !== "passed") {
          const detail = probe.excerpt.trim() === "" ? probe.reason ?? `exit code ${probe.exit_code}` : probe.excerpt.trim().split("\n").slice(-3).join(" ")
          return yield* unrunnable(`Codex's sandbox could not start here: ${detail}`, "state")
        }
        const setup: Array<CommandOutcome> = []
        let failedSetup: CommandOutcome | undefined
        for (const command of request.setup) {
          if (failedSetup !== undefined) {
            setup.push(notRun(command, `An earlier set-up command, \`${failedSetup.command}\`, did not succeed.`, "state"))
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
          checks.push(setupFailure === undefined ? yield* run(command, false) : notRun(command, setupFailure, "state"))
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
