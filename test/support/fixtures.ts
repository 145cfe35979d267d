import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** Real Claude Code sessions and captures of the real `codex` binary, kept in the repository (see PROVENANCE.md). */
export const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url))

/**
 * The absolute path of a fixture, which must exist: a missing one fails the test that asked for it with
 * its name, instead of an ENOENT deep inside the code under test.
 */
export const fixturePath = (...segments: ReadonlyArray<string>): string => {
  const full = path.join(FIXTURES, ...segments)
  if (!fs.existsSync(full)) {
    throw new Error(`Missing test fixture ${path.relative(process.cwd(), full)}: see test/fixtures/PROVENANCE.md.`)
  }
  return full
}

export const CLAUDE_HOME = fixturePath("claude-home")
export const GOLDEN = fixturePath("codex-golden")
export const SCHEMA_DRIFT = fixturePath("schema-drift", "entry-type-catalog.jsonl")
/** Copies of the real sessions with documented minimal edits: task notifications, a resumed session, long context. */
export const CLAUDE_EXTRA = fixturePath("claude-extra")
