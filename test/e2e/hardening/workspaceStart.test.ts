import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Git } from "../../../src/services/Git.js"
import { Workspace } from "../../../src/services/Workspace.js"

const layer = Workspace.Default.pipe(Layer.provide(Git.Default))

const scratch = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-workspace-start-")))

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" }
  }).trim()

const LATER_MARKER = "CLAUDE-LATER-MARKER-7f3a9e"

/** Every file below `directory` whose bytes contain `needle`. */
const filesContaining = (directory: string, needle: string): Array<string> =>
  fs.readdirSync(directory, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(directory, name))
    .filter((file) => fs.lstatSync(file).isFile() && fs.readFileSync(file).includes(needle))

/**
 * The user's repository is a `git worktree` of another repository; both hold commits after the start
 * (Claude's, with a unique marker), packed with a bitmap so that upload-pack may reuse whole packs.
 */
const worktreeRepository = (root: string) => {
  const main = path.join(root, "main")
  fs.mkdirSync(main)
  git(main, "init", "--quiet", "--initial-branch", "main")
  fs.writeFileSync(path.join(main, "app.txt"), "baseline\n")
  fs.mkdirSync(path.join(main, "src"))
  fs.writeFileSync(path.join(main, "src", "lib.txt"), "library\n")
  git(main, "add", ".")
  git(main, "commit", "--quiet", "-m", "baseline")
  const start = git(main, "rev-parse", "HEAD")
  const worktree = path.join(root, "feature")
  git(main, "worktree", "add", "--quiet", "-b", "feature", worktree)
  fs.writeFileSync(path.join(worktree, "app.txt"), `${LATER_MARKER}\n`)
  fs.writeFileSync(path.join(worktree, "answer.txt"), `${LATER_MARKER} answer\n`)
  git(worktree, "add", ".")
  git(worktree, "commit", "--quiet", "-m", `claude's ending ${LATER_MARKER}`)
  fs.writeFileSync(path.join(main, "other.txt"), `${LATER_MARKER} on main\n`)
  git(main, "add", ".")
  git(main, "commit", "--quiet", "-m", `later on main ${LATER_MARKER}`)
  git(main, "repack", "-a", "-d", "-b", "--quiet")
  return { main, worktree, start, commonDir: path.join(main, ".git") }
}

describe("an implementation workspace carries only the start", () => {
  it.effect("is a repository of its own holding only the start commit's objects, naming nothing of the user's", () =>
    Effect.gen(function*() {
      const root = scratch()
      const user = worktreeRepository(root)
      const runDirectory = path.join(root, "run")
      fs.mkdirSync(runDirectory)
      const workspaces = yield* Workspace
      const workspace = yield* workspaces.materialise(runDirectory, { kind: "git", repository: user.worktree, commit: user.start, carriedForwardFiles: [] })
      const gitDir = path.join(workspace.directory, ".git")

      // Its own repository: a directory (no worktree link file), no alternates, no remote, no reflog.
      expect(fs.statSync(gitDir).isDirectory()).toBe(true)
      for (const name of ["FETCH_HEAD", "ORIG_HEAD", "logs", "packed-refs", "objects/info/alternates", "commondir", "shallow"]) {
        expect(fs.existsSync(path.join(gitDir, name)), name).toBe(false)
      }
      expect(git(workspace.directory, "remote")).toBe("")
      expect(git(workspace.directory, "for-each-ref")).toBe("")
      // Not one file of its git directory names the user's repository, its enclosing repository or the root holding both.
      for (const named of [user.worktree, user.main, user.commonDir, root]) expect(filesContaining(gitDir, named)).toEqual([])

      // Exactly the objects reachable from the start commit, and nothing of the later commits.
      const reachable = git(workspace.directory, "rev-list", "--objects", user.start).split("\n").map((line) => line.split(" ")[0]).sort()
      const held = git(workspace.directory, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split("\n").sort()
      expect(held).toEqual(reachable)
      expect(git(workspace.directory, "cat-file", "--batch-all-objects", "--batch")).not.toContain(LATER_MARKER)
      expect(filesContaining(workspace.directory, LATER_MARKER)).toEqual([])
      expect(fs.readFileSync(path.join(workspace.directory, "app.txt"), "utf8")).toBe("baseline\n")

      // The daemon's own repository for reading the workspace borrows its objects from outside it, in the run directory.
      expect(workspace.gitDir.startsWith(`${runDirectory}${path.sep}`)).toBe(true)
      expect(workspace.gitDir.startsWith(`${workspace.directory}${path.sep}`)).toBe(false)
    }).pipe(Effect.provide(layer)))

  it.effect("names every folder of a worktree's repository to hide: the worktree, its git directory, the common one and the main worktree", () =>
    Effect.gen(function*() {
      const user = worktreeRepository(scratch())
      const roots = yield* (yield* Workspace).repositoryRoots(path.join(user.worktree, "."))
      expect(roots.real).toBe(user.worktree)
      expect(roots.topLevel).toBe(user.worktree)
      expect(roots.all.sort()).toEqual([user.worktree, user.main, user.commonDir, path.join(user.commonDir, "worktrees", "feature")].sort())
    }).pipe(Effect.provide(layer)))
})
