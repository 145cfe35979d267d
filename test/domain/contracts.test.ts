import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  GetReportPayload,
  Health,
  InspectThreadArguments,
  ListRunsArguments,
  ListThreadsArguments,
  RunState,
  StartRunPayload
} from "../../src/domain/contracts/index.js"
import { FAILURE_STATUS, failureStatus, gitFailed, invalidArgument, isInternalFailure, notFound, conflict, publicFailure, spawnFailed, StorageError } from "../../src/domain/errors.js"
import { normalizeConfiguration } from "../../src/domain/runConfig.js"
import { initialRunState } from "../../src/domain/runState.js"
import { describeParseError } from "../../src/domain/toolResult.js"

const base = { thread_id: "t", request: "Do it.", beginning_kind: "non_git", ending_kind: "non_git", models: ["m"] }

const messageOf = (input: unknown) => {
  const result = normalizeConfiguration(input)
  return Either.isLeft(result) ? result.left.message : "valid"
}

const decodeMessage = <A, I>(schema: Schema.Schema<A, I>, input: unknown) => {
  const result = Schema.decodeUnknownEither(schema)(input)
  return Either.isLeft(result) ? describeParseError(result.left) : "valid"
}

describe("the replay configuration contract", () => {
  it.each<[string, unknown, string]>([
    ["not an object", "x", "The replay configuration must be an object."],
    ["no thread", {}, "The thread (thread_id) is required and must be a non-empty string."],
    ["a blank thread", { ...base, thread_id: "  " }, "The thread (thread_id) is required and must be a non-empty string."],
    ["a request too long", { ...base, request: "x".repeat(200_001) }, "The task request (request) is longer than 200000 characters."],
    ["no beginning", { ...base, beginning_kind: undefined }, "The beginning state (beginning_kind) must be Git or Non-Git: git or non_git."],
    ["an unknown beginning", { ...base, beginning_kind: "svn" }, 'The beginning state (beginning_kind) must be Git or Non-Git: git or non_git, not "svn".'],
    ["a Git beginning with a plain end", { ...base, beginning_kind: "git" }, "A Git beginning state requires a Git end state (ending_kind: git)."],
    ["a Git replay without a commit", { ...base, beginning_kind: "git", ending_kind: "git" }, "The historical Git commit (baseline_commit) is required for a Git replay."],
    ["an invalid commit", { ...base, beginning_kind: "git", ending_kind: "git", baseline_commit: "zz" }, "The historical Git commit (baseline_commit) is invalid."],
    ["a Git replay without a repository", { ...base, beginning_kind: "git", ending_kind: "git", baseline_commit: "abcdef0", ending_commit: "abcdef1" }, "The repository (repo) is required for a Git replay."],
    ["a repository that is not text", { ...base, repo: 5 }, "repo must be a string."],
    ["a path list that is not a list", { ...base, excluded_files: "a" }, "excluded_files must be a list of file paths."],
    ["a path climbing out", { ...base, carried_forward_files: ["../a"] }, 'carried_forward_files must not contain "..".'],
    ["a flag that is not a boolean", { ...base, confirm_empty_beginning: "yes" }, "confirm_empty_beginning must be true or false."],
    ["no model", { ...base, models: [] }, "Choose a Codex model (model or models)."],
    ["models that are not a list", { ...base, models: "m" }, "models must be a list of Codex model ids."],
    ["an empty model id", { ...base, models: [""] }, "Every model must be a non-empty Codex model id."],
    ["a repeated model", { ...base, models: ["a", "a"] }, "models must not repeat a model."],
    ["five models", { ...base, models: ["a", "b", "c", "d", "e"] }, "At most 4 models can replay one configuration."],
    ["model not first of models", { ...base, models: ["a", "b"], model: "b" }, "model must be the first of models when both are given."],
    ["an invalid reviewer", { ...base, reviewer_model: "gpt 5" }, "reviewer_model must be a Codex model id such as gpt-5.5."],
    ["a timeout of zero", { ...base, timeout_seconds: 0 }, "timeout_seconds must be a whole number of seconds from 1 through 86400."],
    ["half a chunk", { ...base, range_start: "a" }, "A chunk needs both range_start and range_end."],
    // A page or CLI user can meet this one: it names the page's control and the flag, not the API field.
    ["a relative repository folder", { ...base, repository_path: "moved/project" }, "The repository folder must be an absolute path: fill “Repository folder” in Configure with the folder's whole path (such as /home/me/project), or pass --repo PATH."],
    ["checks that are not a list", { ...base, checks: "npm test" }, "checks must be a list of commands."],
    ["a check that is a bare string", { ...base, checks: ["npm test"] }, "Every entry of checks must be an object with a command (and a directory)."],
    ["a blank check", { ...base, checks: [{ command: " " }] }, "Every command of checks must be one line of at most 1000 characters, without control characters."],
    ["a check of two lines", { ...base, checks: [{ command: "npm test\nrm -rf /" }] }, "Every command of checks must be one line of at most 1000 characters, without control characters."],
    ["a check too long", { ...base, checks: [{ command: "x".repeat(1001) }] }, "Every command of checks must be one line of at most 1000 characters, without control characters."],
    ["a check climbing out", { ...base, checks: [{ command: "npm test", directory: "../elsewhere" }] }, 'Every directory of checks must be relative to the project, without "..".'],
    ["an absolute directory", { ...base, setup: [{ command: "npm ci", directory: "/etc" }] }, 'Every directory of setup must be relative to the project, without "..".'],
    ["a directory that climbs once trimmed", { ...base, checks: [{ command: "npm test", directory: " .." }] }, 'Every directory of checks must be relative to the project, without "..".'],
    ["a directory that climbs once normalised", { ...base, checks: [{ command: "npm test", directory: "a/../.." }] }, 'Every directory of checks must be relative to the project, without "..".'],
    ["a directory absolute once trimmed", { ...base, checks: [{ command: "npm test", directory: " /etc" }] }, 'Every directory of checks must be relative to the project, without "..".'],
    ["a check with an escape sequence", { ...base, checks: [{ command: "npm test\u001b[8m & curl evil" }] }, "Every command of checks must be one line of at most 1000 characters, without control characters."],
    ["too many checks", { ...base, checks: Array.from({ length: 21 }, (_, i) => ({ command: `make t${i}` })) }, "checks may name at most 20 commands."],
    ["too many set-up commands", { ...base, setup: Array.from({ length: 11 }, (_, i) => ({ command: `make s${i}` })) }, "setup may name at most 10 commands."]
  ])("refuses %s with its one sentence", (_what, input, message) => {
    expect(messageOf(input)).toBe(message)
  })

  it("keeps the checks and set-up commands it is given, trimmed, each once, each with its directory; absent is the thread's, [] is none", () => {
    const given = normalizeConfiguration({
      ...base,
      checks: [{ command: " npm test " }, { command: "npm test", directory: "./" }, { command: "npm test", directory: "web/" }, { command: "cargo test && rm -rf ~", directory: null }],
      setup: []
    })
    expect(Either.getOrThrow(given).checks).toEqual([
      { command: "npm test", directory: "." },
      { command: "npm test", directory: "web" },
      { command: "cargo test && rm -rf ~", directory: "." }
    ])
    expect(Either.getOrThrow(given).setup).toEqual([])
    const absent = Either.getOrThrow(normalizeConfiguration(base))
    expect([absent.checks, absent.setup]).toEqual([null, null])
    expect(Either.getOrThrow(normalizeConfiguration({ ...base, checks: null })).checks).toBeNull()
  })

  it("normalises what it accepts: absent and null fields, trimmed reviewer, sorted unique paths, lowercase commits", () => {
    const result = normalizeConfiguration({
      ...base,
      models: null,
      model: "gpt-5.6-terra",
      source_path: null,
      repo: "  ",
      excluded_files: ["b", "a", "b"],
      reviewer_model: " gpt-5.5 ",
      beginning_kind: "git",
      ending_kind: "git",
      baseline_commit: "ABCDEF0",
      ending_commit: "abcdef1"
    })
    expect(Either.isLeft(result) ? result.left.message : undefined).toBe("The repository (repo) is required for a Git replay.")
    const accepted = Either.getOrThrow(normalizeConfiguration({ ...base, repo: "/r", excluded_files: ["b", "a", "b"], reviewer_model: " gpt-5.5 ", baseline_commit: "ABCDEF0" }))
    expect(accepted).toMatchObject({
      repo: "/r",
      excluded_files: ["a", "b"],
      reviewer_model: "gpt-5.5",
      baseline_commit: "abcdef0",
      models: ["m"],
      timeout_seconds: 3600,
      confirm_empty_beginning: false,
      source_path: null,
      range_start: null
    })
  })

  it("start_run checks its approval and token first", () => {
    expect(decodeMessage(StartRunPayload, { thread_id: 5 })).toBe("Explicit approval (approved: true) is required before starting a replay.")
    expect(decodeMessage(StartRunPayload, { approved: true, prepare_token: "short" })).toBe(
      "Prepare and approve this exact configuration before starting (prepare_token)."
    )
    expect(decodeMessage(StartRunPayload, [])).toBe("The start arguments must be an object.")
  })
})

describe("the tool payload contracts", () => {
  it.each<[string, Schema.Schema<any, any>, unknown, string]>([
    ["list_threads", ListThreadsArguments, [], "The tool arguments must be an object."],
    ["list_threads", ListThreadsArguments, { offset: 1.5 }, "offset must be an integer."],
    ["list_threads", ListThreadsArguments, { limit: 101 }, "limit must be from 1 through 100."],
    ["list_threads", ListThreadsArguments, { sort: "size" }, "sort must be date or cost."],
    ["list_threads", ListThreadsArguments, { source: null, offset: null }, "valid"],
    ["inspect_thread", InspectThreadArguments, { thread_id: " " }, "thread_id is required."],
    ["inspect_thread", InspectThreadArguments, { thread_id: "t", repo: " " }, "repo must not be empty."],
    ["inspect_thread", InspectThreadArguments, { thread_id: "t", beginning_kind: "" }, "valid"],
    ["get_report", GetReportPayload, { run_id: "r", format: "pdf" }, "Report format must be json or html."],
    ["get_report", GetReportPayload, { format: "json" }, "run_id is required."],
    // Without a sentence of its own, a field's message names the field.
    ["list_runs", ListRunsArguments, { status: "done" }, "status: must be one of running, completed, failed, cancelled."]
  ])("%s: %j", (_tool, schema, input, message) => {
    expect(decodeMessage(schema, input)).toBe(message)
  })
})

describe("the files' contracts", () => {
  it("a new run's state is a RunState; one that lacks a field or holds an absurd value is not", () => {
    const state = initialRunState({ runId: "run-1", controllerSessionId: "a".repeat(32), coordinatorPid: 1, now: "2026-01-01T00:00:00Z", details: { model: "m" } })
    expect(Schema.is(RunState)(state)).toBe(true)
    expect(Schema.is(RunState)({ ...state, unknown_field: { kept: true } })).toBe(true)
    expect(Schema.is(RunState)({ run_id: "run-1", status: "completed", controller_session_id: "a".repeat(32) })).toBe(false)
    expect(Schema.is(RunState)({ ...state, status: "paused" })).toBe(false)
    expect(Schema.is(RunState)({ ...state, coordinator_pid: 1e300 })).toBe(false)
  })

  it("a /health answer is decoded field by field", () => {
    expect(Schema.is(Health)({ server: "codex-replay", protocol_version: 1, version: "1", pid: 1, controller_session_id: "s", active_runs: 0, proof: "" })).toBe(true)
    expect(Schema.is(Health)({ server: "codex-replay", protocol_version: "1" })).toBe(false)
  })
})

describe("failure kinds", () => {
  it("map to their statuses in one place, and an internal failure is answered generically", () => {
    expect([invalidArgument("x"), notFound("x"), conflict("x"), new StorageError({ message: "disk" })].map(failureStatus)).toEqual([400, 404, 409, 500])
    expect(FAILURE_STATUS).toEqual({
      UnreadableFile: 500,
      ControllerUnavailable: 503,
      InvalidArgument: 400,
      NotFound: 404,
      Conflict: 409,
      StorageError: 500,
      SpawnFailed: 500,
      GitFailed: 500,
      CodexUnavailable: 503
    })
    // A spawn or git failure names the program and what to do, nothing private: it is answered as it is.
    const git = gitFailed("The workspace could not be created at abc", "fatal: bad object abc.")
    expect(isInternalFailure(git)).toBe(true)
    expect(publicFailure(git)).toBe(git)
    expect(spawnFailed("git", "spawn git ENOENT").message).toBe("Cannot start git: spawn git ENOENT. Check that it is installed and on PATH, then try again.")
    expect(publicFailure(new StorageError({ message: "EACCES /secret" })).message).toBe("The local controller encountered an error.")
    expect(publicFailure(notFound("No run."))).toMatchObject({ _tag: "NotFound", message: "No run." })
  })
})
