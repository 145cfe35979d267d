import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Git } from "../../../src/services/Git.js"
import { Workspace } from "../../../src/services/Workspace.js"

const layer = Workspace.Default.pipe(Layer.provide(Git.Default))

const scratch = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-gitconfig-")))

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" }
  }).trim()

const repository = (root: string) => {
  const directory = path.join(root, "project")
  fs.mkdirSync(directory)
  git(directory, "init", "--quiet", "--initial-branch", "main")
  fs.writeFileSync(path.join(directory, "app.txt"), "baseline\n")
  git(directory, "add", ".")
  git(directory, "commit", "--quiet", "-m", "baseline")
  return { directory, commit: git(directory, "rev-parse", "HEAD") }
}

/** What an agent could write into its workspace: every setting that makes git run a command, each leaving a marker. */
const plantHostileSettings = (workspace: string, markers: string) => {
  const gitDir = path.join(workspace, ".git")
  fs.mkdirSync(path.join(gitDir, "hooks"), { recursive: true })
  const hooks = path.join(workspace, ".hostile-hooks")
  fs.mkdirSync(hooks)
  const mark = (name: string) => `touch ${path.join(markers, name)}`
  for (const hook of ["pre-commit", "post-checkout", "post-index-change", "fsmonitor-watchman", "pre-auto-gc", "reference-transaction"]) {
    for (const directory of [hooks, path.join(gitDir, "hooks")]) {
      fs.writeFileSync(path.join(directory, hook), `#!/bin/sh\n${mark(`hook-${hook}`)}\n`, { mode: 0o755 })
    }
  }
  fs.appendFileSync(
    path.join(gitDir, "config"),
    [
      "[core]",
      `\tfsmonitor = "${mark("fsmonitor")}; true"`,
      `\thooksPath = ${hooks}`,
      "[filter \"evil\"]",
      `\tclean = "${mark("filter-clean")}; cat"`,
      `\tsmudge = "${mark("filter-smudge")}; cat"`,
      `\tprocess = "${mark("filter-process")}"`,
      "[diff \"evil\"]",
      `\ttextconv = "${mark("textconv")}; cat"`,
      `\tcommand = "${mark("diff-command")}"`,
      "[diff]",
      `\texternal = "${mark("external-diff")}"`,
      ""
    ].join("\n")
  )
  fs.writeFileSync(path.join(workspace, ".gitattributes"), "* filter=evil diff=evil\n")
}

describe("the daemon's git never runs settings the agent could write", () => {
  it.effect("collecting a git workspace runs no planted fsmonitor, filter, textconv, external diff or hook", () =>
    Effect.gen(function*() {
      const root = scratch()
      const repo = repository(root)
      const runDirectory = path.join(root, "run")
      fs.mkdirSync(runDirectory)
      const markers = path.join(root, "markers")
      fs.mkdirSync(markers)
      const workspaces = yield* Workspace
      const workspace = yield* workspaces.materialise(runDirectory, { kind: "git", repository: repo.directory, commit: repo.commit, carriedForwardFiles: [] })
      plantHostileSettings(workspace.directory, markers)
      fs.writeFileSync(path.join(workspace.directory, "app.txt"), "changed by the agent\n")
      fs.writeFileSync(path.join(workspace.directory, "new.txt"), "new\n")
      const patch = yield* workspaces.diff(workspace)
      expect(fs.readdirSync(markers)).toEqual([])
      expect(patch).toContain("+changed by the agent")
      expect(patch).toContain("diff --git a/new.txt b/new.txt")
      expect(patch).toContain("diff --git a/.gitattributes b/.gitattributes")
      // The daemon's git directory is its own, outside the workspace.
      expect(workspace.gitDir.startsWith(`${workspace.directory}${path.sep}`)).toBe(false)
    }).pipe(Effect.provide(layer)))

  it.effect("collecting a non-git workspace in which the agent made its own .git runs none of it either", () =>
    Effect.gen(function*() {
      const root = scratch()
      const runDirectory = path.join(root, "run")
      fs.mkdirSync(runDirectory)
      const markers = path.join(root, "markers")
      fs.mkdirSync(markers)
      const workspaces = yield* Workspace
      const workspace = yield* workspaces.materialise(runDirectory, { kind: "non_git", repository: null, commit: null, carriedForwardFiles: [] })
      git(workspace.directory, "init", "--quiet")
      plantHostileSettings(workspace.directory, markers)
      fs.writeFileSync(path.join(workspace.directory, "greet.py"), "print('hi')\n")
      const patch = yield* workspaces.diff(workspace)
      expect(fs.readdirSync(markers)).toEqual([])
      expect(patch).toContain("+print('hi')")
    }).pipe(Effect.provide(layer)))
})
