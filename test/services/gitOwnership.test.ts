import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { notARepositoryReason } from "../../src/domain/gitRefusal.js"
import { Baseline } from "../../src/services/Baseline.js"
import { fakeWorker, pipelineLayer, testSettings } from "../runs/harness.js"

const DUBIOUS = "fatal: detected dubious ownership in repository at '/srv/repo'\nTo add an exception for this directory, call:"

describe("a repository git refuses for its owner", () => {
  it("is reported as such, with the safe.directory remedy; anything else is not a repository", () => {
    expect(notARepositoryReason("/srv/repo", DUBIOUS)).toBe(
      "git refuses /srv/repo: it is owned by another user (\"dubious ownership\"). If you trust it, run `git config --global --add safe.directory /srv/repo` and try again."
    )
    expect(notARepositoryReason("/srv/repo", "fatal: not a git repository (or any of the parent directories): .git")).toBe(
      "/srv/repo is not a Git repository."
    )
  })

  // Handing a repository to another user takes root; without it the sentence above is what is checked.
  const asRoot = process.getuid?.() === 0 ? [["owned by another user"]] : []
  it.effect.each(asRoot)("the proposal for a real repository %s names git's refusal and its remedy", () =>
    Effect.gen(function*() {
      const repository = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-owned-")))
      execFileSync("git", ["init", "-q", repository])
      execFileSync("chown", ["-R", "54321:54321", repository])
      const proposal = yield* (yield* Baseline).propose({
        projectDir: repository,
        startedAt: null,
        endedAt: null,
        gitBranch: null,
        changedFiles: []
      })
      expect(proposal.baseline.source_kind).toBe("non_git")
      expect(proposal.baseline.evidence).toEqual([
        `git refuses ${repository}: it is owned by another user ("dubious ownership"). If you trust it, run \`git config --global --add safe.directory ${repository}\` and try again.`
      ])
    }).pipe(Effect.provide(pipelineLayer(testSettings(), fakeWorker(() => Effect.succeed("unused"))))))
})
