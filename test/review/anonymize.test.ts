import { describe, expect, it } from "vitest"
import {
  anonymizePatch,
  anonymizeProse,
  anonymousCandidate,
  changedFilesFromPatch,
  withoutWorkspaceTraces
} from "../../src/domain/review/anonymize.js"

const patch = [
  "diff --git a/CLAUDE.md b/CLAUDE.md",
  "index 1111111..2222222 100644",
  "--- a/CLAUDE.md",
  "+++ b/CLAUDE.md",
  "@@ -1,2 +1,5 @@",
  " # Notes",
  "+Use the anthropic client from ~/.claude/settings.json",
  "+🤖 Generated with [Claude Code](https://claude.com/claude-code)",
  "+Co-Authored-By: Claude <noreply@anthropic.com>",
  " end",
  "@@ -10,1 +13,2 @@ section",
  " keep",
  "+added",
  ""
].join("\n")

describe("anonymisation", () => {
  it("drops fingerprint lines from a patch and recounts the hunk", () => {
    const result = anonymizePatch(patch)
    expect(result).not.toMatch(/Generated with|Co-Authored-By|noreply@anthropic/)
    expect(result).toContain("@@ -1,2 +1,3 @@")
    // A hunk header in git's form, without the function context only git adds.
    expect(result).toContain("@@ -10 +13,2 @@\n")
    expect(result).toContain("+Use the anthropic client from ~/.claude/settings.json")
    expect(result).toContain("diff --git a/CLAUDE.md b/CLAUDE.md")
    expect(result).not.toContain("index 1111111..2222222")
    expect(result.split("\n").slice(0, 3)).toEqual(["diff --git a/CLAUDE.md b/CLAUDE.md", "--- a/CLAUDE.md", "+++ b/CLAUDE.md"])
  })

  it("removes trailers and agent names from prose but keeps paths", () => {
    const text = "I'm Claude and I updated CLAUDE.md and ~/.codex/config.\nCodex CLI was not used.\n\nGenerated with Claude Code\nCo-Authored-By: Someone <a@b.c>"
    const result = anonymizeProse(text)
    expect(result).toBe("I'm the agent and I updated CLAUDE.md and ~/.codex/config.\nthe agent was not used.")
  })

  it("builds the candidate without worktree or author fields", () => {
    const candidate = anonymousCandidate("Fix it", {
      patch,
      final_response: "Done by OpenAI Codex.",
      files: [{ path: "CLAUDE.md", additions: 3, deletions: 0 }]
    })
    expect(Object.keys(candidate)).toEqual(["task", "patch", "final_response", "changed_files"])
    expect(candidate.final_response).toBe("Done by the agent.")
    // Counted again from the anonymous patch: the two dropped fingerprint lines are not counted.
    expect(candidate.changed_files).toEqual([{ path: "CLAUDE.md", additions: 2, deletions: 0 }])
  })

  it("reads changed files and line counts from a patch", () => {
    expect(changedFilesFromPatch(patch)).toEqual([{ path: "CLAUDE.md", additions: 4, deletions: 0 }])
  })

  it("a candidate names neither its workspace path nor a run id", () => {
    const worktree = "/home/u/.cache/codex-replay/runs/run-20261129T160737Z-28d3683249/workspaces/codex"
    const candidate = anonymousCandidate("Fix it", {
      patch: "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,0 +1,1 @@\n+# see run-20261129T160737Z-28d3683249\n",
      final_response: `I edited ${worktree}/x.py and ran the tests in ${worktree}. ${worktree}-old is another folder.`,
      files: [{ path: "x.py", additions: 1, deletions: 0 }],
      worktree
    })
    // Another folder keeps its path, but no run id.
    expect(candidate.final_response).toBe("I edited ./x.py and ran the tests in the workspace. /home/u/.cache/codex-replay/runs/the run/workspaces/codex-old is another folder.")
    expect(candidate.patch).toContain("+# see the run")
    expect(JSON.stringify(candidate)).not.toMatch(/run-2026|workspaces\/codex\/x|"worktree"/)
  })

  it("scrubs a place wherever it starts a path, with or without a trailing slash, and nowhere inside another path", () => {
    const places = ["/home/u/proj/", "/srv/real-proj"]
    expect(withoutWorkspaceTraces("Edited /home/u/proj/a.js and /srv/real-proj/a.js in /home/u/proj, /home/u/proj/ and (/srv/real-proj).", places))
      .toBe("Edited ./a.js and ./a.js in the workspace, ./ and (the workspace).")
    expect(withoutWorkspaceTraces("/mnt/home/u/proj/a.js, /home/u/project/a.js and /home/u/proj.old stay.", places))
      .toBe("/mnt/home/u/proj/a.js, /home/u/project/a.js and /home/u/proj.old stay.")
  })

  it("scrubs a final response of one word as long as its ceiling in one pass, still finding a workspace at its end", () => {
    // The run-workspace pattern once started a scan at every character of a word: a 256 KB word took minutes.
    const word = `${"x".repeat(256 * 1024)} /r/run-20261129T160737Z-28d3683249/workspaces/codex/a.js`
    const started = performance.now()
    const scrubbed = withoutWorkspaceTraces(word, [])
    expect(performance.now() - started).toBeLessThan(2000)
    expect(scrubbed.endsWith(" ./a.js")).toBe(true)
  })
})
