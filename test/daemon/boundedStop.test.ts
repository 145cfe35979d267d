import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runDaemon } from "../../src/daemon.js"
import { DaemonLive } from "../../src/layers.js"
import { controllerTools } from "../../src/programs/registry.js"
import { reportDownload } from "../../src/programs/reports/reportDownload.js"
import { RunSupervisor } from "../../src/services/RunSupervisor.js"
import { configProviderOf } from "../../src/services/Settings.js"
import { FAKE_CODEX, freePort } from "../support/daemon.js"

describe("stopping the daemon", () => {
  it.live("is bounded: a step that does not end within the limit is reported with its name, and the stop goes on once it ends", () =>
    Effect.gen(function*() {
      const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-stop-")))
      fs.mkdirSync(path.join(root, "claude", "projects"), { recursive: true })
      const env = {
        HOME: root,
        CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"),
        CODEX_REPLAY_CONTROLLER_PORT: String(yield* Effect.promise(freePort)),
        CODEX_REPLAY_CONTROLLER_SESSION_ID: randomBytes(16).toString("hex"),
        CLAUDE_CONFIG_DIR: path.join(root, "claude"),
        CODEX_CLI_PATH: FAKE_CODEX
      }
      const stuck = yield* Deferred.make<string>()
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      // A run that cannot be interrupted until the test releases it.
      const daemon = runDaemon({
        tools: controllerTools,
        download: reportDownload,
        afterReconcile: Effect.flatMap(RunSupervisor, (supervisor) =>
          supervisor.launch("run-stuck", Effect.uninterruptible(Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release))))),
        stopLimit: "300 millis",
        onStopStuck: (step) => Effect.asVoid(Deferred.succeed(stuck, step))
      }).pipe(Effect.provide(DaemonLive), Effect.withConfigProvider(configProviderOf(env)))

      const fiber = yield* Effect.fork(daemon)
      yield* Deferred.await(started)
      yield* Fiber.interruptFork(fiber)
      expect(yield* Deferred.await(stuck).pipe(Effect.timeout("10 seconds"))).toBe("interrupting the runs")
      expect(fiber.unsafePoll()).toBeNull()

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.await(fiber).pipe(Effect.timeout("10 seconds"))
      expect(fs.existsSync(path.join(root, "controllers", env.CODEX_REPLAY_CONTROLLER_SESSION_ID, "controller-server.json"))).toBe(false)
    }), 30_000)
})
