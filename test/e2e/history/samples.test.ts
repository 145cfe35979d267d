import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { listThreads } from "../../../src/programs/threads/threadList.js"
import { inspectThread, threadRecordById } from "../../../src/programs/threads/threads.js"
import { historyLayer, scratch, settingsFor } from "../../history/support.js"

const settings = settingsFor(scratch("empty-claude-home-"))

describe("packaged samples", () => {
  it.layer(historyLayer(settings))((it) => {
    it.effect("are listed with source sample, and are the default source without imported history", () =>
      Effect.gen(function*() {
        const listed = yield* listThreads({})
        expect(listed.source).toBe("sample")
        expect(listed.imported_total).toBe(0)
        expect(listed.threads.map((thread) => [thread.imported_thread_id, thread.source, thread.changed_files])).toEqual([
          ["sample-hello-cli", "sample", 1],
          ["sample-word-count", "sample", 2]
        ])
      }))

    it.effect("inspects the non-git sample as a non-git selection", () =>
      Effect.gen(function*() {
        const result = yield* inspectThread({ thread_id: "sample-hello-cli" })
        expect(result.replay.request_generation).toEqual({ method: "packaged_sample" })
        expect(result.replay.request).toContain("Create greet.py")
        expect(result.baseline).toMatchObject({ source_kind: "non_git", commit: null })
        expect(result.workspace.files.map((file) => [file.path, file.kind, file.selectable])).toEqual([["greet.py", "created", true]])
      }))

    it.effect("materialises the git sample into a real repository whose commits match the transcript", () =>
      Effect.gen(function*() {
        const manifest = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../../samples/word-count/sample.json"), "utf8"))
        const result = yield* inspectThread({ thread_id: "sample-word-count" })
        const repository = path.join(settings.cacheRoot, "samples", "sample-word-count")
        expect(result.baseline).toMatchObject({
          source_kind: "git",
          repository: fs.realpathSync(repository),
          commit: manifest.baseline_commit,
          ending_commit: manifest.ending_commit
        })
        expect(result.blockers).toEqual([])
        // The diff rebuilt from the transcript applies to the beginning commit and yields the ending commit's files.
        const record = yield* threadRecordById("sample-word-count")
        const worktree = scratch("sample-apply-")
        execFileSync("git", ["clone", "-q", repository, worktree])
        execFileSync("git", ["checkout", "-q", manifest.baseline_commit], { cwd: worktree })
        const patch = path.join(worktree, "..", `${path.basename(worktree)}.patch`)
        fs.writeFileSync(patch, record.historical_changed_files.map((file) => file.diff).join(""))
        execFileSync("git", ["apply", patch], { cwd: worktree })
        execFileSync("git", ["add", "-A"], { cwd: worktree })
        const difference = execFileSync("git", ["diff", "--cached", manifest.ending_commit, "--stat"], { cwd: worktree, encoding: "utf8" })
        expect(difference.trim()).toBe("")
        expect(record.final_response.startsWith("Added `count_words`")).toBe(true)
      }))
  })
})
