import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Ref } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { conflict } from "../../../src/domain/errors.js"
import { configurationFingerprint, normalizeConfiguration, tokenHash } from "../../../src/domain/runConfig.js"
import { awaitRun } from "../../../src/programs/runs/watch.js"
import { prepareRun } from "../../../src/programs/runs/prepare.js"
import { startRun } from "../../../src/programs/runs/start.js"
import type { WorkerRequest } from "../../../src/services/CodexWorker.js"
import { FileStore } from "../../../src/services/FileStore.js"
import { RunCoordinator, type CoordinatorRequest } from "../../../src/services/RunCoordinator.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { RunSupervisor } from "../../../src/services/RunSupervisor.js"
import { CodexWorker } from "../../../src/services/CodexWorker.js"
import { coordinatorRequest, fakeWorker, pipelineLayer, type Respond, testSettings, tieBallot } from "../../runs/harness.js"

/** Waits for the run's fiber to end (the pipeline's timing is tested under TestClock in test/engine/). */
const ended = (runId: string) => Effect.flatMap(RunSupervisor, (supervisor) => supervisor.awaitEnd(runId))

const writeAnswer = (request: WorkerRequest<unknown, unknown>) =>
  Effect.sync(() => fs.writeFileSync(path.join(request.workingDirectory, "greet.py"), "print('hi')\n"))

const succeed: Respond = (request) => Effect.as(writeAnswer(request), "Done.")

/** A run directory as `start_run` leaves it, and its fiber launched. */
const launch = (runId: string, overrides: Partial<CoordinatorRequest> = {}) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const files = yield* FileStore
    const supervisor = yield* RunSupervisor
    const coordinator = yield* RunCoordinator
    const { directory } = yield* runs.create({ runId, coordinatorPid: process.pid, details: { run_tag: runId } })
    yield* files.writeJson(path.join(directory, "run.json"), { run_id: runId })
    yield* supervisor.launch(runId, coordinator.run(directory, coordinatorRequest(runId, overrides)))
    return directory
  })

const stateOf = (runId: string) => Effect.flatMap(RunStore, (runs) => Effect.map(runs.readOwned(runId), ({ state }) => state))

describe("workspaces", () => {
  it.scoped("copies carried-forward files into a non-git workspace and leaves them out of the Codex patch", () =>
    Effect.gen(function*() {
      const settings = testSettings()
      const project = path.join(settings.cacheRoot, "project")
      fs.mkdirSync(path.join(project, "lib"), { recursive: true })
      fs.writeFileSync(path.join(project, "lib", "util.py"), "def helper():\n    return 1\n")
      fs.writeFileSync(path.join(project, "not-carried.txt"), "stays out\n")
      const seen = yield* Ref.make<Array<string>>([])
      const implement: Respond = (request) =>
        Effect.zipRight(
          Ref.set(seen, fs.readdirSync(request.workingDirectory, { recursive: true }).map(String).sort()),
          succeed(request)
        )
      yield* Effect.gen(function*() {
        const directory = yield* launch("run-carried", {
          workspace: { kind: "non_git", repository: project, commit: null, carriedForwardFiles: ["lib/util.py"] }
        })
        yield* ended("run-carried")
        expect((yield* stateOf("run-carried")).status).toBe("completed")
        expect(yield* Ref.get(seen)).toEqual(["lib", "lib/util.py"])
        const record = JSON.parse(fs.readFileSync(path.join(directory, "run.json"), "utf8"))
        expect(record.codex.patch).toContain("+++ b/greet.py")
        expect(record.codex.patch).not.toContain("util.py")
        expect(record.codex.files.map((file: { path: string }) => file.path)).toEqual(["greet.py"])
      }).pipe(Effect.provide(pipelineLayer(settings, fakeWorker(implement))))
    }))
})

describe("carried-forward files and symlinks", () => {
  const git = (cwd: string, ...args: Array<string>) =>
    execFileSync("git", args, {
      cwd,
      env: { ...process.env, GIT_AUTHOR_NAME: "Test", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "Test", GIT_COMMITTER_EMAIL: "t@example.com" }
    }).toString().trim()

  /** Runs one replay with `carried` and answers its failure message and whether Codex was reached. */
  const replayFailure = (runId: string, workspace: CoordinatorRequest["workspace"], settings: ReturnType<typeof testSettings>) =>
    Effect.gen(function*() {
      const reached = yield* Ref.make(false)
      return yield* Effect.gen(function*() {
        yield* launch(runId, { workspace })
        yield* ended(runId)
        const state = yield* stateOf(runId)
        return { status: state.status, error: String(state.error), reached: yield* Ref.get(reached) }
      }).pipe(Effect.provide(pipelineLayer(settings, fakeWorker((request) => Effect.zipRight(Ref.set(reached, true), succeed(request))))))
    })

  /** Fresh settings, an empty project directory and, beside it, a directory a link may point to. */
  const projectBesideOutside = () => {
    const settings = testSettings()
    const outside = path.join(settings.cacheRoot, "outside")
    const project = path.join(settings.cacheRoot, "project")
    fs.mkdirSync(outside, { recursive: true })
    fs.mkdirSync(project, { recursive: true })
    return { settings, outside, project }
  }

  it.scoped("a link in the project cannot bring in a file from outside it", () =>
    Effect.gen(function*() {
      const { settings, outside, project } = projectBesideOutside()
      fs.writeFileSync(path.join(outside, "secret.txt"), "not for Codex\n")
      fs.symlinkSync(outside, path.join(project, "lib"))
      const result = yield* replayFailure("run-link-in", { kind: "non_git", repository: project, commit: null, carriedForwardFiles: ["lib/secret.txt"] }, settings)
      expect(result).toEqual({ status: "failed", error: "The carried-forward file lib/secret.txt is outside its root.", reached: false })
    }))

  it.scoped("a link in the checked-out commit cannot send the copy out of the workspace", () =>
    Effect.gen(function*() {
      const { settings, outside, project } = projectBesideOutside()
      git(project, "init", "--quiet")
      fs.symlinkSync(outside, path.join(project, "lib"))
      git(project, "add", "lib")
      git(project, "commit", "--quiet", "-m", "lib is a link")
      const commit = git(project, "rev-parse", "HEAD")
      // The working tree now has a real lib/ with the file to carry; the commit still has the link. A Git
      // beginning carries only files of the starting commit, never the working tree's.
      fs.rmSync(path.join(project, "lib"))
      fs.mkdirSync(path.join(project, "lib"))
      fs.writeFileSync(path.join(project, "lib", "x.txt"), "carried\n")
      const result = yield* replayFailure("run-link-out", { kind: "git", repository: project, commit, carriedForwardFiles: ["lib/x.txt"] }, settings)
      expect(result).toEqual({ status: "failed", error: "The carried-forward file lib/x.txt is not a file of the starting commit.", reached: false })
      expect(fs.readdirSync(outside)).toEqual([])
    }))
})

describe("embedding: the programs with their own layers", () => {
  const config = {
    thread_id: "sample-hello-cli",
    request: "Create greet.py that prints a greeting.",
    beginning_kind: "non_git",
    ending_kind: "non_git",
    confirm_empty_beginning: true,
    models: ["gpt-5.6-sol", "gpt-5.6-terra"]
  }

  it.live("prepare → start → await with a fake worker: reports, and a model that fails to launch is accounted for", () =>
    Effect.gen(function*() {
      const settings = testSettings()
      const launches = yield* Ref.make(0)
      // The real supervisor, except that the second launch fails.
      const FailingSecondLaunch = Layer.effect(
        RunSupervisor,
        Effect.map(RunSupervisor, (real) =>
          RunSupervisor.make({
            ...real,
            launch: (runId, run) =>
              Effect.flatMap(Ref.updateAndGet(launches, (count) => count + 1), (count) =>
                count === 2 ? Effect.fail(conflict("The supervisor refused this launch.")) : real.launch(runId, run))
          }))
      )
      yield* Effect.gen(function*() {
        const prepared = yield* prepareRun(config)
        expect(prepared.ready).toBe(true)
        const started = yield* startRun({ ...config, approved: true, prepare_token: prepared.prepare_token })
        expect(started.runs).toHaveLength(1)
        expect(started.errors).toHaveLength(1)
        expect(started.errors[0]).toMatchObject({ controller_code: "launch_failed", error: "The supervisor refused this launch." })
        const failedModel = started.errors[0]!.model
        const final = yield* awaitRun(started.run_id, { pollInterval: "50 millis" })
        expect(final.status).toBe("completed")
        expect(fs.existsSync(String(final.report_html))).toBe(true)
        expect(final.run_group_errors).toEqual(started.errors)

        const attempt = JSON.parse(fs.readFileSync(path.join(settings.controllersRoot, settings.controllerSessionId, "attempt.json"), "utf8"))
        expect(attempt.models.find((entry: { model: string }) => entry.model === failedModel)).toMatchObject({
          launch_status: "failed",
          controller_code: "launch_failed"
        })
        expect(attempt.models.find((entry: { model: string }) => entry.model !== failedModel)).toMatchObject({ launch_status: "started" })

        const again = yield* startRun({ ...config, approved: true, prepare_token: prepared.prepare_token })
        expect(again).toMatchObject({ idempotent: true, run_id: started.run_id, errors: started.errors })
      }).pipe(Effect.provide(FailingSecondLaunch), Effect.provide(pipelineLayer(settings, fakeWorker(succeed))))
    }))

  it.live("while it implements, nothing in the run directory tells the implementer what Claude did; afterwards run.json holds both sides", () =>
    Effect.gen(function*() {
      const settings = testSettings()
      const seen = yield* Ref.make("")
      const runDirectoryOf = (workspace: string) => path.dirname(path.dirname(workspace))
      // Everything readable in the run directory while the implementer runs, except its own workspace.
      const snapshot = (directory: string): string =>
        fs.readdirSync(directory, { withFileTypes: true }).map((entry) => {
          const full = path.join(directory, entry.name)
          if (entry.name === "workspaces") return ""
          return entry.isDirectory() ? snapshot(full) : `${full}\n${fs.readFileSync(full, "utf8")}\n`
        }).join("")
      const implement: Respond = (request) =>
        Effect.zipRight(Ref.set(seen, snapshot(runDirectoryOf(request.workingDirectory))), succeed(request))
      yield* Effect.gen(function*() {
        const single = { ...config, models: ["gpt-5.6-sol"] }
        const prepared = yield* prepareRun(single)
        const started = yield* startRun({ ...single, approved: true, prepare_token: prepared.prepare_token })
        const final = yield* awaitRun(started.run_id, { pollInterval: "50 millis" })
        expect(final.status).toBe("completed")
        const directory = path.dirname(String(final.report_json))
        const record = JSON.parse(fs.readFileSync(path.join(directory, "run.json"), "utf8"))
        const claude = record.claude as { patch: string; final_response: string }
        expect(claude.patch).toContain("greet")
        expect(claude.final_response.length).toBeGreaterThan(10)
        expect(JSON.parse(fs.readFileSync(path.join(directory, "coordinator-request.json"), "utf8")).claude).toEqual(record.claude)
        const during = yield* Ref.get(seen)
        expect(during).toContain("coordinator-request.json")
        expect(during).toContain("run.json")
        expect(during).not.toContain(claude.final_response)
        for (const line of claude.patch.split("\n").filter((text) => text.startsWith("+") && text.length > 8)) {
          expect(during).not.toContain(line.slice(1))
        }
        expect(during).not.toContain(`"claude"`)
      }).pipe(Effect.provide(pipelineLayer(settings, fakeWorker(implement))))
    }))

  it.live("the reviewer: the configuration's reviewer_model, else the controller's, else a model that implements none of the runs; recorded with self-review", () =>
    Effect.gen(function*() {
      const reviewersSeen = yield* Ref.make<Array<string>>([])
      const recording = CodexWorker.fake((request) =>
        request.purpose === "implementation"
          ? succeed(request)
          : Effect.as(Ref.update(reviewersSeen, (models) => [...models, request.model]), tieBallot))
      const replayWith = (settings: ReturnType<typeof testSettings>, extra: Record<string, unknown>) =>
        Effect.gen(function*() {
          const single = { ...config, models: ["gpt-5.6-sol"], ...extra }
          const prepared = yield* prepareRun(single)
          const started = yield* startRun({ ...single, approved: true, prepare_token: prepared.prepare_token })
          const final = yield* awaitRun(started.run_id, { pollInterval: "50 millis" })
          const report = JSON.parse(fs.readFileSync(String(final.report_json), "utf8"))
          return { prepared, about: report.about_review, html: fs.readFileSync(String(final.report_html), "utf8") }
        }).pipe(Effect.provide(pipelineLayer(settings, recording)))

      // Nothing chosen: Codex's default model is the implementer here, so the next model it lists reviews, as prepare said.
      const byDefault = yield* replayWith(testSettings(), {})
      expect(byDefault.prepared).toMatchObject({ reviewer_model: "gpt-5.6-terra", self_review_models: [] })
      expect(byDefault.about).toMatchObject({ reviewer_model: "gpt-5.6-terra", self_review: false })
      expect(byDefault.html).toContain("<dd>gpt-5.6-terra</dd>")
      expect(byDefault.html).not.toContain("self-review)")
      // The controller's reviewer.
      const fromSettings = yield* replayWith({ ...testSettings(), reviewerModel: "gpt-5.6-terra" }, {})
      expect(fromSettings.about).toMatchObject({ reviewer_model: "gpt-5.6-terra", self_review: false })
      // The configuration's reviewer wins over the controller's.
      const chosen = yield* replayWith({ ...testSettings(), reviewerModel: "gpt-5.6-terra" }, { reviewer_model: "gpt-5.6-sol" })
      expect(chosen.about).toMatchObject({ reviewer_model: "gpt-5.6-sol", self_review: true })
      expect(yield* Ref.get(reviewersSeen)).toEqual(["gpt-5.6-terra", "gpt-5.6-terra", "gpt-5.6-terra", "gpt-5.6-terra", "gpt-5.6-sol", "gpt-5.6-sol"])
    }))

  it.live("a reviewer model Codex does not offer is refused at prepare with one sentence, and nothing is started", () =>
    Effect.gen(function*() {
      const settings = testSettings()
      yield* Effect.gen(function*() {
        const unknown = yield* Effect.flip(prepareRun({ ...config, reviewer_model: "gpt-nope" }))
        expect(unknown.message).toBe("Unknown reviewer model (reviewer_model): gpt-nope. Choose one of: gpt-5.6-sol, gpt-5.6-terra.")
        const malformed = yield* Effect.flip(prepareRun({ ...config, reviewer_model: "bad model!" }))
        expect(malformed.message).toBe("reviewer_model must be a Codex model id such as gpt-5.5.")
        const notString = yield* Effect.flip(prepareRun({ ...config, reviewer_model: 5 }))
        expect(notString.message).toBe("reviewer_model must be a Codex model id such as gpt-5.5.")
      }).pipe(Effect.provide(pipelineLayer(settings, fakeWorker(succeed))))
      yield* Effect.gen(function*() {
        const refused = yield* Effect.flip(prepareRun(config))
        expect(refused.message).toBe("CODEX_REPLAY_REVIEWER_MODEL names gpt-gone, which Codex does not offer; choose one of: gpt-5.6-sol, gpt-5.6-terra.")
      }).pipe(Effect.provide(pipelineLayer({ ...settings, reviewerModel: "gpt-gone" }, fakeWorker(succeed))))
      expect(fs.readdirSync(settings.runRoot)).toEqual([])
    }))

  it.live("after a restart, a token whose start stopped half way is refused rather than half answered", () =>
    Effect.gen(function*() {
      const settings = testSettings()
      const token = "t".repeat(43)
      const configuration = Either.getOrThrow(normalizeConfiguration(config))
      yield* Effect.gen(function*() {
        const runs = yield* RunStore
        // As the previous daemon left it: the first model's run exists, the second never launched.
        yield* runs.create({
          runId: "run-half",
          coordinatorPid: 1,
          details: {
            model: "gpt-5.6-sol",
            thread_id: config.thread_id,
            prepare_token_hash: tokenHash(token),
            configuration_fingerprint: configurationFingerprint(configuration)
          }
        })
        const refused = yield* Effect.flip(startRun({ ...config, approved: true, prepare_token: token }))
        expect(refused.message).toMatch(/did not finish starting every selected model/)
        const single = { ...config, models: ["gpt-5.6-sol"] }
        const changed = yield* Effect.flip(startRun({ ...single, approved: true, prepare_token: token }))
        expect(changed.message).toMatch(/approved configuration changed/)
      }).pipe(Effect.provide(pipelineLayer(settings, fakeWorker(succeed))))
    }))
})
