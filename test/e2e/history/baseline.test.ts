import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ChangedFile } from "../../../src/domain/history/changes.js"
import { Baseline, type BaselineRequest } from "../../../src/services/Baseline.js"
import { ProcessRunner } from "../../../src/services/ProcessRunner.js"
import { scratch } from "../../history/support.js"
import { gitAt } from "../../runs/support.js"

const layer = Baseline.Default.pipe(Layer.provide(ProcessRunner.Default))

const T = (iso: string) => Math.floor(Date.parse(iso) / 1000)
const SESSION_START = "2025-06-02T10:00:00.000Z"
const SESSION_END = "2025-06-02T10:30:00.000Z"

const git = (cwd: string, args: ReadonlyArray<string>, at?: string) =>
  gitAt(cwd, at === undefined ? undefined : `@${T(at)} +0000`, ...args)

const commit = (repo: string, file: string, content: string, message: string, at: string) => {
  fs.writeFileSync(path.join(repo, file), content)
  git(repo, ["add", file], at)
  git(repo, ["commit", "-q", "-m", message], at)
  return git(repo, ["rev-parse", "HEAD"])
}

/**
 * main: c1 (May 1) → c2 (June 1, the tip when the session starts at June 2 10:00) → c3 (10:10, touches
 * app.txt, which Claude changed) → c4 (10:20, touches only notes.txt) → c5 (June 3, touches app.txt).
 */
const buildRepository = () => {
  const repo = scratch("baseline-repo-")
  git(repo, ["init", "-q", "-b", "main"])
  const c1 = commit(repo, "app.txt", "one\n", "c1", "2025-05-01T09:00:00Z")
  const c2 = commit(repo, "CLAUDE.md", "# rules\n", "c2", "2025-06-01T09:00:00Z")
  const c3 = commit(repo, "app.txt", "two\n", "c3 claude's change", "2025-06-02T10:10:00Z")
  const c4 = commit(repo, "notes.txt", "n\n", "c4 unrelated", "2025-06-02T10:20:00Z")
  const c5 = commit(repo, "app.txt", "three\n", "c5 later", "2025-06-03T09:00:00Z")
  return { repo, c1, c2, c3, c4, c5 }
}

const changed = (filePath: string, kind: "created" | "modified" = "modified"): ChangedFile => ({
  path: filePath,
  kind,
  by_subagent: false,
  abandoned: false,
  outside_project: false,
  operations: 1,
  abandoned_operations: 0,
  diff: "",
  final_content: "two\n"
})

const request = (projectDir: string, overrides: Partial<BaselineRequest> = {}): BaselineRequest => ({
  projectDir,
  startedAt: SESSION_START,
  endedAt: SESSION_END,
  gitBranch: "main",
  changedFiles: [changed("app.txt")],
  ...overrides
})

/** Everything a read-only inspection must leave untouched. */
const repositoryState = (repo: string) => ({
  status: git(repo, ["status", "--porcelain"]),
  head: git(repo, ["rev-parse", "HEAD"]),
  refs: git(repo, ["for-each-ref"]),
  reflog: fs.readFileSync(path.join(repo, ".git", "logs", "HEAD"), "utf8"),
  indexMtime: fs.statSync(path.join(repo, ".git", "index")).mtimeMs
})

describe("Baseline on real repositories", () => {
  it.layer(layer)((it) => {
    it.effect("takes the beginning from the reflog and the ending from the session window's commits", () =>
      Effect.gen(function*() {
        const { repo, c2, c3 } = buildRepository()
        const before = repositoryState(repo)
        const proposal = yield* (yield* Baseline).propose(request(repo))
        expect(proposal.baseline).toMatchObject({
          source_kind: "git",
          beginning_kind: "git",
          ending_kind: "git",
          commit: c2,
          ending_commit: c3,
          branch: "main",
          repository: fs.realpathSync(repo)
        })
        expect(proposal.baseline.evidence.join("\n")).toMatch(/Reflog: main pointed at .* 2025-06-01T09:00:00.000Z/)
        expect(proposal.questions).toEqual([])
        expect(proposal.blocking_reasons).toEqual([])
        // c2 added CLAUDE.md and there is no AGENTS.md: the capability check needs to know.
        expect(proposal.instructions).toEqual({ claudeMd: true, agentsMd: false, where: `The starting commit ${c2.slice(0, 7)}` })
        expect(repositoryState(repo)).toEqual(before)
      }))

    it.effect("falls back to commit dates without a reflog and asks the user to confirm", () =>
      Effect.gen(function*() {
        const { repo, c2, c3 } = buildRepository()
        fs.rmSync(path.join(repo, ".git", "logs"), { recursive: true })
        const proposal = yield* (yield* Baseline).propose(request(repo))
        expect(proposal.baseline.commit).toBe(c2)
        expect(proposal.baseline.ending_commit).toBe(c3)
        expect(proposal.baseline.evidence.join("\n")).toContain("Commit dates:")
        expect(proposal.questions).toEqual([`Confirm the beginning commit ${c2.slice(0, 7)}: it was chosen by commit date.`])
      }))

    it.effect("proposes a later commit with a question when none of the window touches Claude's files", () =>
      Effect.gen(function*() {
        const { repo, c5 } = buildRepository()
        const proposal = yield* (yield* Baseline).propose(request(repo, { endedAt: "2025-06-02T10:05:00.000Z", startedAt: "2025-06-02T09:59:00.000Z" }))
        // c3 (10:10) is inside the one-hour grace after 10:05, so it is still the ending.
        expect(proposal.baseline.ending_commit).not.toBe(c5)
        const late = yield* (yield* Baseline).propose(request(repo, { changedFiles: [changed("notes.txt")], endedAt: "2025-06-02T08:00:00.000Z", startedAt: "2025-06-02T07:00:00.000Z" }))
        expect(late.questions.some((question) => question.startsWith("Confirm the ending commit"))).toBe(true)
      }))

    it.effect("honours reviewed commits and rejects ones that do not exist", () =>
      Effect.gen(function*() {
        const { repo, c1, c4 } = buildRepository()
        const chosen = yield* (yield* Baseline).propose(request(repo, { baselineCommit: c1, endingCommit: c4 }))
        expect(chosen.baseline).toMatchObject({ commit: c1, ending_commit: c4 })
        const missing = yield* (yield* Baseline).propose(request(repo, { baselineCommit: "f".repeat(40) }))
        expect(missing.blocking_reasons).toEqual([`The historical Git commit ${"f".repeat(40)} does not exist in ${fs.realpathSync(repo)}.`])
      }))

    it.effect("proposes a non-git selection for a plain directory, with the empty beginning to confirm", () =>
      Effect.gen(function*() {
        const directory = scratch("baseline-plain-")
        fs.writeFileSync(path.join(directory, "CLAUDE.md"), "# rules\n")
        const proposal = yield* (yield* Baseline).propose(request(directory, {
          gitBranch: null,
          changedFiles: [changed("app.txt"), changed("new.txt", "created")],
          excludedFiles: ["new.txt"]
        }))
        expect(proposal.baseline).toMatchObject({ source_kind: "non_git", beginning_kind: "non_git", commit: null, ending_commit: null })
        expect(proposal.file_selection.candidates.map((candidate) => [candidate.path, candidate.selectable, candidate.selected])).toEqual([
          ["app.txt", true, true],
          ["new.txt", true, false]
        ])
        expect(proposal.file_selection.requires_empty_beginning_confirmation).toBe(true)
        expect(proposal.file_selection.preexisting_files).toEqual(["app.txt"])
        expect(proposal.questions[0]).toContain("Claude modified 1 file(s) that existed before the session (app.txt)")
        expect(proposal.instructions).toEqual({ claudeMd: true, agentsMd: false, where: "The project directory" })
      }))

    it.effect("treats a missing project directory as non-git and says so", () =>
      Effect.gen(function*() {
        const proposal = yield* (yield* Baseline).propose(request("/path/that/does/not/exist"))
        expect(proposal.baseline.source_kind).toBe("non_git")
        expect(proposal.baseline.evidence).toEqual(["/path/that/does/not/exist does not exist on this machine."])
      }))
  })
})
