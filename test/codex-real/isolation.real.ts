import { it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { CodexWorker } from "../../src/services/CodexWorker.js"
import { FileStore } from "../../src/services/FileStore.js"
import { ProcessRunner } from "../../src/services/ProcessRunner.js"
import { Review } from "../../src/services/Review.js"
import { RunLog } from "../../src/services/RunLog.js"
import { ballotFavouring } from "../review/ballots.js"
import { CLAUDE_MARK, CODEX_MARK, claudeResult, codexResult } from "../review/support.js"
import { assistantMessage, completed, created, type MockReply, shellCall, sse, startMockResponses } from "./mockResponses.js"
import { binary, codexHome, mockProviderConfig } from "./support.js"

const CONTROL_TOKEN = "control-token-7f3a9c1e5b2d4a6f8e0c2b4d6f8a0c2e"
const RUN_ID = "run-20261201T100000Z-0123456789"

/**
 * A user's machine in miniature, below one home directory (outside /tmp, like a real home): the run
 * root with a run whose files name both sides, `controllers/` with the control token, the Claude
 * history, Codex's own home, and the user's repository in Claude's end state.
 */
const makeMachine = () => {
  const home = codexHome()
  const cache = path.join(home, ".cache", "codex-replay")
  const runRoot = path.join(cache, "runs")
  const runDirectory = path.join(runRoot, RUN_ID)
  const workspace = path.join(runDirectory, "workspaces", "codex")
  const controllers = path.join(cache, "controllers")
  const claude = path.join(home, ".claude")
  const repository = path.join(home, "projects", "app")
  const userCodexHome = path.join(home, ".codex")
  for (const directory of [workspace, path.join(controllers, "0123456789abcdef0123456789abcdef"), path.join(claude, "projects", "-app"), repository, userCodexHome, path.join(runDirectory, "reviews")]) {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
  }
  const sides = { codex: { patch: codexResult.patch }, claude: { patch: claudeResult.patch, final_response: claudeResult.final_response } }
  fs.writeFileSync(path.join(runDirectory, "run.json"), JSON.stringify({ run_id: RUN_ID, ...sides }))
  fs.writeFileSync(path.join(runDirectory, "coordinator-request.json"), JSON.stringify({ run_id: RUN_ID, claude: sides.claude }))
  fs.writeFileSync(path.join(runDirectory, "reviews", "candidate-mapping.json"), JSON.stringify({ candidate_mapping: { A: "claude", B: "codex" } }))
  fs.writeFileSync(path.join(workspace, "a.txt"), `keep\n${CODEX_MARK}\n`)
  fs.writeFileSync(path.join(controllers, "0123456789abcdef0123456789abcdef", "controller-server.json"), JSON.stringify({ control_token: CONTROL_TOKEN }))
  fs.writeFileSync(path.join(claude, "projects", "-app", "session.jsonl"), JSON.stringify({ message: `${CLAUDE_MARK} written by Claude` }))
  fs.writeFileSync(path.join(repository, "a.txt"), `keep\n${CLAUDE_MARK}\n`)
  fs.writeFileSync(path.join(userCodexHome, "session.jsonl"), JSON.stringify({ patch: codexResult.patch }))
  return { home, runRoot, runDirectory, workspace, controllers, claude, repository, userCodexHome }
}
type Machine = ReturnType<typeof makeMachine>

/** The worker exactly as the daemon builds it (hidden: run root, controllers, Claude history, Codex's home). */
const workerLayer = (machine: Machine, url: string) =>
  CodexWorker.layer({
    cliPath: binary!,
    codexHome: codexHome(),
    environment: { ...process.env, HOME: machine.home },
    apiKey: "test",
    config: mockProviderConfig(url),
    hiddenRoots: [machine.runRoot, machine.controllers, machine.claude, machine.userCodexHome]
  }).pipe(Layer.provide(Layer.mergeAll(ProcessRunner.Default, RunLog.Default)))

/** Everything a curious agent tries: where am I, what is around me, what mentions either side. */
const snoopingCommand = (machine: Machine) =>
  [
    // Discovery: what it can find without knowing any path.
    "pwd",
    "ls -la . .. ../.. ../../.. 2>&1",
    `grep -r -e ${CODEX_MARK} -e ${CLAUDE_MARK} -e candidate -e control_token ${machine.home} 2>&1 | grep -v 'Permission denied'`,
    `find ${machine.home} -name 'candidate-*' 2>/dev/null`,
    "echo DIRECT-ATTEMPTS",
    // Direct attempts at the paths a run really uses.
    `ls -la ${machine.runDirectory} ${machine.runRoot} ${machine.controllers} ${machine.claude} ${machine.userCodexHome} 2>&1`,
    `cat ${machine.runDirectory}/run.json ${machine.runDirectory}/coordinator-request.json ${machine.runDirectory}/reviews/candidate-mapping.json 2>&1`,
    `cat ${machine.controllers}/*/controller-server.json 2>&1`,
    "echo SNOOP-DONE"
  ].join("; ")

/** Contents that would tell the agent what Claude did, which candidate is whom, or the control token. */
const SECRETS = [CLAUDE_MARK, CONTROL_TOKEN, "control_token", "candidate_mapping", `"A":"claude"`, "Generated with"]

/** The text the agent got back from its command (the function call output codex sent to the model). */
const commandOutputs = (requests: ReadonlyArray<Record<string, unknown>>) =>
  requests.flatMap((request) =>
    (Array.isArray(request.input) ? request.input : []).flatMap((item: { type?: string; output?: unknown }) =>
      item.type === "function_call_output" ? [typeof item.output === "string" ? item.output : JSON.stringify(item.output)] : []))

const withMock = <A, E, R>(replies: ReadonlyArray<MockReply>, body: (url: string, requests: Array<Record<string, unknown>>) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => startMockResponses(replies)),
    (mock) => body(mock.url, mock.requests),
    (mock) => Effect.promise(() => mock.close())
  )

if (binary !== undefined) {
  describe("what the real codex binary's sandbox lets a replayed agent read", () => {
    it.live("a snooping reviewer finds nothing that tells which candidate is whom, and its ballots are accepted", () => {
      const machine = makeMachine()
      const ballot = JSON.stringify(ballotFavouring("A"))
      const snoop = sse(created(), shellCall(snoopingCommand(machine)), completed())
      const answer = sse(created(), assistantMessage(ballot), completed())
      return withMock([snoop, answer, snoop, answer], (url, requests) =>
        Effect.gen(function*() {
          const review = yield* Review
          const evaluation = yield* review.run({
            runDirectory: machine.runDirectory,
            request: "Add a line to a.txt.",
            codex: { ...codexResult, worktree: machine.workspace },
            claude: { ...claudeResult, worktree: machine.repository },
            model: "gpt-5.5",
            hiddenRoots: [machine.repository]
          })
          expect(evaluation.reviews.map((entry) => [entry.status, entry.error])).toEqual([["completed", null], ["completed", null]])
          const outputs = commandOutputs(requests)
          expect(outputs).toHaveLength(2)
          for (const output of outputs) {
            console.info(`[codex-real] what the reviewer saw:\n${output}`)
            expect(output).toContain("SNOOP-DONE")
            const discovery = output.slice(0, output.indexOf("DIRECT-ATTEMPTS"))
            const workingDirectory = discovery.split("\n").find((line) => line.startsWith("/")) ?? ""
            // A neutral place outside the run root: no run id, no order, no author.
            expect(workingDirectory).toMatch(/\/workspace-[A-Za-z0-9]{6}$/)
            expect(workingDirectory.startsWith(machine.home)).toBe(false)
            expect(workingDirectory).not.toMatch(/\bab\b|\bba\b|codex|claude|gpt|run-/i)
            // Its parent shows only its own workspace: not the private folder's owner record, nor another
            // review's workspace.
            expect(discovery).not.toContain(".owner")
            const parentListing = discovery.slice(discovery.indexOf("\n..:\n"), discovery.indexOf("\n../..:\n"))
            expect(new Set(parentListing.match(/workspace-[A-Za-z0-9]{6}/g))).toEqual(new Set([workingDirectory.split("/").pop()]))
            expect(discovery).toContain("candidate-a.json")
            for (const secret of [CODEX_MARK, RUN_ID, "workspaces", "candidate-mapping"]) expect(discovery).not.toContain(secret)
            for (const secret of [...SECRETS, CODEX_MARK]) expect(output).not.toContain(secret)
          }
          // The mapping is on disk now that both orders have finished.
          expect(fs.existsSync(path.join(machine.runDirectory, "reviews", "candidate-a.json"))).toBe(true)
        }).pipe(Effect.provide(Review.DefaultWithoutDependencies.pipe(
          Layer.provide(Layer.mergeAll(workerLayer(machine, url), RunLog.Default, FileStore.Default))
        ))))
    }, 120_000)

    it.live("a snooping implementer cannot read Claude's result, the control token or the user's repository, and still writes its workspace", () => {
      const machine = makeMachine()
      const command = `${snoopingCommand(machine)}; cat ${machine.repository}/a.txt 2>&1; cat a.txt; echo written > made-by-agent.txt && echo WROTE; echo TMPDIR=$TMPDIR; echo x > $TMPDIR/t && echo TEMP-WRITTEN; ls -la /tmp 2>&1 | head -5`
      return withMock([sse(created(), shellCall(command), completed()), sse(created(), assistantMessage("Done."), completed())], (url, requests) =>
        Effect.gen(function*() {
          const worker = yield* CodexWorker
          const result = yield* worker.run({
            purpose: "implementation",
            model: "gpt-5.5",
            prompt: "Add a line to a.txt.",
            workingDirectory: machine.workspace,
            runDirectory: machine.runDirectory,
            hiddenRoots: [machine.repository]
          })
          expect(result.final_response).toBe("Done.")
          const [output = ""] = commandOutputs(requests)
          console.info(`[codex-real] what the implementer saw:\n${output}`)
          expect(output).toContain("SNOOP-DONE")
          expect(output).toContain("WROTE")
          expect(fs.readFileSync(path.join(machine.workspace, "made-by-agent.txt"), "utf8")).toBe("written\n")
          // Its own workspace is readable (the Codex marker is in it); nothing of Claude's, no token.
          expect(output).toContain(CODEX_MARK)
          for (const secret of SECRETS) expect(output).not.toContain(secret)
          // Its own temporary directory, inside the hidden system one and gone afterwards.
          const temporary = /TMPDIR=(\S+)/.exec(output)?.[1] ?? ""
          expect(temporary).toMatch(/\/tmp-[A-Za-z0-9]{6}$/)
          expect(output).toContain("TEMP-WRITTEN")
          expect(fs.existsSync(temporary)).toBe(false)
        }).pipe(Effect.provide(workerLayer(machine, url))))
    }, 120_000)
  })
}
