import { Layer } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ControllerSessionId } from "../../src/domain/ids.js"
import type { ResolvedSettings } from "../../src/domain/settings.js"
import { Baseline } from "../../src/services/Baseline.js"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { CodexModels } from "../../src/services/CodexModels.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"
import { Samples } from "../../src/services/Samples.js"
import { Settings } from "../../src/services/Settings.js"

import { CLAUDE_EXTRA, CLAUDE_HOME, SCHEMA_DRIFT } from "../support/fixtures.js"

export { CLAUDE_EXTRA, CLAUDE_HOME, SCHEMA_DRIFT }
export const PROJECTS = path.join(CLAUDE_HOME, "projects")

export const fixture = (folder: string, file: string) => path.join(PROJECTS, folder, file)

export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex")

/** A thread index file's text with its first line (the JSON before the summary lines) changed by `edit`. */
export const withFirstLine = (text: string, edit: (first: Record<string, any>) => void) => {
  const end = text.indexOf("\n")
  const first = JSON.parse(text.slice(0, end))
  edit(first)
  return `${JSON.stringify(first)}${text.slice(end)}`
}

export const scratch = (prefix = "history-") => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

export const settingsFor = (claudeConfigDir: string, overrides: Partial<ResolvedSettings> = {}): ResolvedSettings => {
  const cacheRoot = scratch("history-cache-")
  return {
    runRoot: path.join(cacheRoot, "runs"),
    cacheRoot,
    controllersRoot: path.join(cacheRoot, "controllers"),
    preferredPort: 43118,
    idleTimeoutMillis: 3_600_000,
    controllerSessionId: "0".repeat(32) as ControllerSessionId,
    codexCliPath: path.join(cacheRoot, "no-such-codex"),
    claudeConfigDir,
    inheritedSocketFd: undefined,
    ...overrides
  }
}

/** Every service of the importer over real files, with the given settings. */
export const historyLayer = (settings: ResolvedSettings) =>
  Layer.mergeAll(ClaudeHistory.Default, Samples.Default, Baseline.Default, CodexModels.Default).pipe(
    Layer.provideMerge(Settings.layer(settings)),
    Layer.provideMerge(ProcessRunner.Default)
  )

/** A copy of a fixture project tree in a fresh CLAUDE_CONFIG_DIR, for tests that change files. */
export const copyOfClaudeHome = () => {
  const home = scratch("claude-home-")
  fs.cpSync(CLAUDE_HOME, home, { recursive: true })
  for (const file of fs.readdirSync(home, { recursive: true, withFileTypes: true })) {
    const full = path.join(file.parentPath, file.name)
    fs.chmodSync(full, file.isDirectory() ? 0o755 : 0o644)
  }
  return home
}

/** A fake `codex` that prints a model catalogue for `debug models` (or fails when told to). */
export const fakeCodex = (catalogue: unknown, exitCode = 0) => {
  const directory = scratch("fake-codex-")
  const file = path.join(directory, "codex")
  fs.writeFileSync(
    file,
    `#!${process.execPath}\n` +
      `if (process.argv[2] !== "debug" || process.argv[3] !== "models") { console.error("unexpected"); process.exit(2) }\n` +
      `process.stdout.write(${JSON.stringify(JSON.stringify(catalogue))} + "\\n")\n` +
      `process.exit(${exitCode})\n`,
    { mode: 0o755 }
  )
  return file
}
