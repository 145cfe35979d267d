import { it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect } from "vitest"
import { resolveSettings } from "../../../src/domain/settings.js"
import { CodexPreflight } from "../../../src/services/CodexPreflight.js"
import { bundledCandidates, locateCodex } from "../../../src/services/platform/codexCli.js"
import { ProcessEnvironment } from "../../../src/services/platform/environment.js"
import { NodeLinkSafeFilesLive } from "../../../src/services/platform/nodeFiles.js"
import { ProcessRunner } from "../../../src/services/ProcessRunner.js"
import { Settings } from "../../../src/services/Settings.js"
import { FAKE_CODEX, scratch } from "../../worker/support.js"

/** A folder holding an executable `codex` that prints `name` (a stand-in found on PATH). */
const folderWithCodex = (name: string) => {
  const folder = scratch("codex-path-")
  fs.writeFileSync(path.join(folder, "codex"), `#!/bin/sh\necho ${name}\n`, { mode: 0o755 })
  return folder
}

const locate = (configured: string | undefined, environment: Record<string, string>) =>
  Effect.provide(locateCodex(configured, environment), NodeLinkSafeFilesLive)

it.effect("one lookup: CODEX_CLI_PATH, then codex on PATH, then the Codex installed with the package", () =>
  Effect.gen(function*() {
    const onPath = folderWithCodex("path")
    expect(yield* locate(FAKE_CODEX, { PATH: onPath })).toEqual({ found: true, path: FAKE_CODEX, source: "CODEX_CLI_PATH" })
    expect(yield* locate(undefined, { PATH: `/nonexistent${path.delimiter}${onPath}` }))
      .toEqual({ found: true, path: path.join(onPath, "codex"), source: "PATH" })
    // Nothing on PATH (as under `node bin/codex-replay.js` outside npm): the bundled launcher, node_modules/.bin/codex's target.
    const bundled = yield* locate(undefined, { PATH: scratch("empty-path-") })
    expect(bundled).toMatchObject({ found: true, source: "bundled" })
    expect(bundled.found && fs.realpathSync(bundled.path)).toBe(fs.realpathSync(path.resolve("node_modules/.bin/codex")))
    expect(bundledCandidates().length).toBeGreaterThan(1)
    // A CODEX_CLI_PATH that names nothing is not replaced by another Codex.
    expect(yield* locate("/nonexistent/codex", { PATH: onPath }))
      .toEqual({ found: false, message: "The Codex CLI /nonexistent/codex does not exist or is not executable." })
  }))

const settingsWith = (codexCliPath: string | undefined) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-preflight-"))
  const resolved = resolveSettings(
    { CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"), CLAUDE_CONFIG_DIR: path.join(root, "claude"), ...(codexCliPath === undefined ? {} : { CODEX_CLI_PATH: codexCliPath }) },
    os.homedir(),
    () => randomBytes(16).toString("hex")
  )
  if (Either.isLeft(resolved)) throw new Error(resolved.left.message)
  return resolved.right
}

/** The preflight over the real process runner, with this environment as the controller's own. */
const preflight = (codexCliPath: string | undefined, environment: Record<string, string>) =>
  Effect.flatMap(CodexPreflight, (service) => service.check()).pipe(
    Effect.provide(CodexPreflight.Default.pipe(
      Layer.provide(Layer.mergeAll(ProcessRunner.Default, Settings.layer(settingsWith(codexCliPath)))),
      Layer.provide(ProcessEnvironment.layer({ PATH: process.env.PATH ?? "", HOME: os.homedir(), ...environment }))
    ))
  )

it.live("the preflight runs `codex login status` in the worker's environment and says what to do when it is not logged in", () =>
  Effect.gen(function*() {
    expect(yield* preflight(FAKE_CODEX, {})).toEqual({
      status: "ready",
      ready: true,
      codex_path: FAKE_CODEX,
      codex_source: "CODEX_CLI_PATH",
      login: "Logged in using ChatGPT",
      message: null
    })
    expect(yield* preflight(FAKE_CODEX, { FAKE_CODEX_LOGIN: "logged_out" })).toMatchObject({
      status: "not_logged_in",
      ready: false,
      login: "Not logged in",
      message: "Codex is not logged in: run `codex login` (or set CODEX_API_KEY), then try again."
    })
    // A key the worker hands to Codex counts as a login.
    expect(yield* preflight(FAKE_CODEX, { FAKE_CODEX_LOGIN: "logged_out", CODEX_API_KEY: "sk-test" })).toMatchObject({ ready: true })
    expect(yield* preflight("/nonexistent/codex", {})).toEqual({
      status: "codex_missing",
      ready: false,
      codex_path: null,
      codex_source: null,
      login: null,
      message: "The Codex CLI /nonexistent/codex does not exist or is not executable: install Codex (npm install -g @openai/codex) or set CODEX_CLI_PATH to its executable, then run `codex login`."
    })
    // A `codex` that runs but is not Codex (it knows no `login status`).
    const broken = scratch("broken-codex-")
    fs.writeFileSync(path.join(broken, "codex"), "#!/bin/sh\necho 'error: unrecognized subcommand' >&2\nexit 2\n", { mode: 0o755 })
    expect(yield* preflight(undefined, { PATH: broken })).toMatchObject({
      status: "codex_missing",
      codex_source: "PATH",
      message: expect.stringMatching(/failed `codex login status` \(exit code 2: error: unrecognized subcommand\): install Codex/)
    })
  }))

it.live("the Codex installed with the package, found with nothing on PATH, is asked too: with an empty CODEX_HOME it is not logged in", () =>
  Effect.gen(function*() {
    const codexHome = fs.mkdtempSync(path.join(os.homedir(), ".codex-replay-preflight-"))
    try {
      const answer = yield* preflight(undefined, { PATH: `${path.dirname(process.execPath)}`, CODEX_HOME: codexHome })
      expect(answer).toMatchObject({ status: "not_logged_in", ready: false, codex_source: "bundled", login: "Not logged in" })
      expect(answer.codex_path !== null && fs.realpathSync(answer.codex_path)).toBe(fs.realpathSync(path.resolve("node_modules/.bin/codex")))
    } finally {
      fs.rmSync(codexHome, { recursive: true, force: true })
    }
  }))

it.live("a warning Codex prints before its answer does not hide that it is not logged in", () =>
  Effect.gen(function*() {
    const folder = scratch("warning-codex-")
    fs.writeFileSync(path.join(folder, "codex"), "#!/bin/sh\necho 'WARNING: proceeding, even though we could not create PATH aliases' >&2\necho 'Not logged in' >&2\nexit 1\n", { mode: 0o755 })
    expect(yield* preflight(undefined, { PATH: folder })).toMatchObject({ status: "not_logged_in", login: "Not logged in" })
  }))
