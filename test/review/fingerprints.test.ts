import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { unifiedDiff } from "../../src/domain/history/diff.js"
import { anonymizePatch, anonymousCandidate, changedFilesFromPatch } from "../../src/domain/review/anonymize.js"
import { Review } from "../../src/services/Review.js"
import { ballotFavouring } from "./ballots.js"
import { claudeResult, codexResult, readJsonFile, reviewInput, reviewLayer } from "./support.js"

const RUN_ID = "run-20261129T160737Z-28d3683249"

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.invalid", "-c", "core.hooksPath=/dev/null", ...args], { cwd, encoding: "utf8" })

const BEFORE = {
  "sp ace.txt": "one\n",
  "é.txt": "un\n",
  "a.js": ["function alpha() {", "  const x = 1", "  const y = 2", "  const z = 3", "  return x", "}", ""].join("\n"),
  "z/b.js": "one\ntwo\n"
}
const AFTER = {
  "sp ace.txt": "two\n",
  "é.txt": "deux\n",
  "a.js": ["function alpha() {", "  const x = 1", "  const y = 2", "  const z = 3", "  return x + y + z", "}", ""].join("\n"),
  "z/b.js": "one\ntwo\nthree",
  "m.js": "export const m = 1\n"
}

describe("candidates carry no fingerprint of how their patch was made", () => {
  it("a patch rebuilt from a transcript in edit order and git's patch of the same change read the same", () => {
    const repository = mkdtempSync(path.join(os.tmpdir(), "fingerprint-repo-"))
    return Effect.promise(async () => {
      git(repository, "init", "--quiet")
      await fs.mkdir(path.join(repository, "z"))
      for (const [file, content] of Object.entries(BEFORE)) await fs.writeFile(path.join(repository, file), content)
      git(repository, "add", ".")
      git(repository, "commit", "--quiet", "-m", "start")
      for (const [file, content] of Object.entries(AFTER)) await fs.writeFile(path.join(repository, file), content)
      git(repository, "add", ".")
      git(repository, "commit", "--quiet", "-m", "end")
      const gitPatch = git(repository, "diff", "--binary", "--no-color", "--no-ext-diff", "HEAD~1", "HEAD")
      // git names blobs and gives a hunk its function as context: both tell how the patch was made.
      expect(gitPatch).toMatch(/^index [0-9a-f]+\.\.[0-9a-f]+/m)
      expect(gitPatch).toMatch(/^@@ .* @@ function alpha\(\) \{$/m)
      // git quotes a name with a byte beyond ASCII and ends a header whose name has a space with a tab.
      expect(gitPatch).toContain(`diff --git "a/\\303\\251.txt" "b/\\303\\251.txt"`)
      expect(gitPatch).toContain("+++ b/sp ace.txt\t\n")
      // Claude edited z/b.js, then m.js, then a.js.
      const rebuilt = [
        unifiedDiff("é.txt", BEFORE["é.txt"], AFTER["é.txt"]),
        unifiedDiff("sp ace.txt", BEFORE["sp ace.txt"], AFTER["sp ace.txt"]),
        unifiedDiff("z/b.js", BEFORE["z/b.js"], AFTER["z/b.js"]),
        unifiedDiff("m.js", null, AFTER["m.js"]),
        unifiedDiff("a.js", BEFORE["a.js"], AFTER["a.js"])
      ].join("")
      expect(rebuilt.indexOf("z/b.js")).toBeLessThan(rebuilt.indexOf("a.js"))
      const fromGit = anonymizePatch(gitPatch)
      expect(anonymizePatch(rebuilt)).toBe(fromGit)
      expect(fromGit.match(/^diff --git a\/.+? b/gm)).toEqual(["diff --git a/a.js b", "diff --git a/m.js b", "diff --git a/sp ace.txt b", "diff --git a/z/b.js b", "diff --git a/é.txt b"])
      expect(changedFilesFromPatch(gitPatch).map((file) => file.path)).toEqual(["a.js", "m.js", "sp ace.txt", "z/b.js", "é.txt"])
      expect(fromGit.endsWith("\n") && !fromGit.endsWith("\n\n")).toBe(true)
      const candidate = anonymousCandidate("Task", {
        patch: rebuilt,
        final_response: "Done.",
        files: [{ path: "z/b.js", additions: 1, deletions: 1 }, { path: "m.js", additions: 1, deletions: 0 }, { path: "a.js", additions: 1, deletions: 1 }]
      })
      expect(candidate.changed_files.map((file) => file.path)).toEqual(["a.js", "m.js", "z/b.js"])
    })
  })

  it("an empty patch stays empty and a patch without a final newline gets one", () => {
    expect(anonymizePatch("")).toBe("")
    expect(anonymizePatch("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b")).toBe("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
  })

  it.effect("every spelling of the run root, the workspace and the project is scrubbed from both candidates alike", () =>
    Effect.gen(function*() {
      const root = yield* Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "codex-replay-spellings-")))
      const runs = path.join(root, "runs")
      const runDirectory = path.join(root, "runs-link", RUN_ID)
      const project = path.join(root, "project")
      yield* Effect.promise(async () => {
        await fs.mkdir(path.join(runs, RUN_ID, "workspaces", "codex"), { recursive: true })
        await fs.mkdir(path.join(runs, "tmp"))
        await fs.symlink(runs, path.join(root, "runs-link"))
        await fs.symlink(runs, path.join(root, "another-link"))
        await fs.mkdir(project)
        await fs.symlink(project, path.join(root, "project-link"))
        await fs.symlink(project, path.join(root, "cwd-link"))
      })
      const linked = path.join(runDirectory, "workspaces", "codex")
      const real = path.join(runs, RUN_ID, "workspaces", "codex")
      const unknownSpelling = path.join(root, "another-link", RUN_ID, "workspaces", "codex")
      const input = reviewInput(runDirectory, {
        codex: {
          ...codexResult,
          worktree: linked,
          final_response: `I changed ${linked}/stock.js, checked ${real}/stock.js and ${unknownSpelling}/stock.js, and ran the tests in ${real}/ and ${linked}.`
        },
        claude: {
          ...claudeResult,
          // The project as configured and Claude's recorded working directory, both links: the real folder is found by realpath.
          worktree: path.join(root, "project-link"),
          working_directories: [path.join(root, "cwd-link")],
          final_response: `I changed ${root}/cwd-link/stock.js, checked ${project}/stock.js and ${root}/project-link/stock.js, and ran the tests in ${project}/ and ${root}/cwd-link.`
        },
        workspaceParent: path.join(runs, "tmp")
      })
      yield* Effect.flatMap(Review, (review) => review.run(input)).pipe(Effect.provide(reviewLayer(() => Effect.succeed(JSON.stringify(ballotFavouring("A"))))))
      const read = (letter: string) => readJsonFile(path.join(runs, RUN_ID, "reviews", `candidate-${letter}.json`)) as Effect.Effect<{ final_response: string }>
      const expected = "I changed ./stock.js, checked ./stock.js and ./stock.js, and ran the tests in ./ and the workspace."
      expect((yield* read("a")).final_response).toBe(expected)
      expect((yield* read("b")).final_response).toBe(expected)
    }))
})
