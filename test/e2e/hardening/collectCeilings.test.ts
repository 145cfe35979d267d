/**
 * Both sides' patches are read from git within the ceilings on agent output (docs/controller.md, "Ceilings on
 * agent output"), with real git: Claude's patch between two commits and Codex's collected workspace list a
 * binary file by its size instead of inlining it, cut a file's part at its ceiling, and list every changed
 * file, renames under their new name.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { COLLECTED_FILE_CEILING_BYTES } from "../../../src/domain/report/ceilings.js"
import { Git } from "../../../src/services/Git.js"
import { Workspace } from "../../../src/services/Workspace.js"

const layer = Workspace.Default.pipe(Layer.provide(Git.Default))

const scratch = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-ceilings-")))

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" }
  }).trim()

/** A repository `<root>/project` with one commit holding `app.txt`; answers it and that commit. */
const repositoryIn = (root: string) => {
  const directory = path.join(root, "project")
  fs.mkdirSync(directory)
  git(directory, "init", "--quiet", "--initial-branch", "main")
  fs.writeFileSync(path.join(directory, "app.txt"), "baseline\n")
  git(directory, "add", ".")
  git(directory, "commit", "--quiet", "-m", "baseline")
  return { directory, baseline: git(directory, "rev-parse", "HEAD") }
}

const RANDOM_BYTES = 3 * 1024 * 1024
const LINE = "a line of text that goes on for a while\n"

/** Writes what an agent might leave: 3 MiB of random bytes, a text file past its ceiling, a small file, a rename. */
const leaveLargeOutput = (directory: string) => {
  fs.writeFileSync(path.join(directory, "archive.bin"), randomBytes(RANDOM_BYTES))
  fs.writeFileSync(path.join(directory, "big.txt"), LINE.repeat(Math.ceil((2 * COLLECTED_FILE_CEILING_BYTES) / LINE.length)))
  fs.writeFileSync(path.join(directory, "small.txt"), "small\n")
  fs.renameSync(path.join(directory, "app.txt"), path.join(directory, "renamed.txt"))
}

const expectBounded = (patch: string) => {
  expect(patch).toContain("Binary files /dev/null and b/archive.bin differ")
  expect(patch).not.toContain("GIT binary patch")
  expect(patch).toMatch(/^… "big\.txt": truncated: 1\.0 MB of 2\.\d MB shown$/m)
  expect(patch).toContain("+++ b/small.txt\n@@ -0,0 +1 @@\n+small\n")
  expect(Buffer.byteLength(patch)).toBeLessThan(COLLECTED_FILE_CEILING_BYTES + 4096)
}

describe("patches read within the ceilings", () => {
  it.effect("Claude's patch between two commits lists the binary file and cuts the large one", () =>
    Effect.gen(function*() {
      const { directory, baseline } = repositoryIn(scratch())
      leaveLargeOutput(directory)
      git(directory, "add", "--all", ".")
      git(directory, "commit", "--quiet", "-m", "ending")
      const collected = yield* (yield* Workspace).historicalPatch(directory, baseline, git(directory, "rev-parse", "HEAD"))
      expectBounded(collected.patch)
      expect(collected.cuts).toEqual([expect.objectContaining({ kind: "file", path: "big.txt", unit: "bytes" })])
      expect(collected.total_bytes).toBeGreaterThan(2 * COLLECTED_FILE_CEILING_BYTES)
    }).pipe(Effect.provide(layer)))

  it.effect("Claude's change between two commits lists every file it touched, also those past the patch's cut", () =>
    Effect.gen(function*() {
      const { directory, baseline } = repositoryIn(scratch())
      // Five files of 700 KB: 3.5 MB of patch, past its 2 MB ceiling after the third.
      const names = ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"]
      for (const name of names) fs.writeFileSync(path.join(directory, name), `${"line of text\n".repeat(700 * 1024 / 13)}`)
      git(directory, "add", "--all", ".")
      git(directory, "commit", "--quiet", "-m", "ending")
      const collected = yield* (yield* Workspace).historicalPatch(directory, baseline, git(directory, "rev-parse", "HEAD"))
      expect(collected.cuts).toContainEqual(expect.objectContaining({ kind: "patch" }))
      expect(collected.patch).not.toContain("diff --git a/e.txt")
      expect(collected.listing?.files.map((file) => file.path)).toEqual(names)
      expect(collected.listing?.total).toBe(5)
    }).pipe(Effect.provide(layer)))

  it.effect("Codex's workspace lists the binary file by its size, every file with its counts, and cuts the large one", () =>
    Effect.gen(function*() {
      const root = scratch()
      const { directory, baseline: commit } = repositoryIn(root)
      const workspaces = yield* Workspace
      const runDirectory = path.join(root, "run")
      fs.mkdirSync(runDirectory, { mode: 0o700 })
      const workspace = yield* workspaces.materialise(runDirectory, { kind: "git", repository: directory, commit, carriedForwardFiles: [] })
      leaveLargeOutput(workspace.directory)
      const collected = yield* workspaces.collect(workspace)
      expectBounded(collected.patch)
      expect([...collected.files].sort((left, right) => left.path.localeCompare(right.path))).toEqual([
        { path: "archive.bin", additions: 0, deletions: 0, binary: true, bytes: RANDOM_BYTES },
        { path: "big.txt", additions: Math.ceil((2 * COLLECTED_FILE_CEILING_BYTES) / LINE.length), deletions: 0 },
        { path: "renamed.txt", additions: 0, deletions: 0 },
        { path: "small.txt", additions: 1, deletions: 0 }
      ])
      expect(collected.cuts).toEqual([expect.objectContaining({ kind: "file", path: "big.txt" })])
    }).pipe(Effect.provide(layer)))
})
