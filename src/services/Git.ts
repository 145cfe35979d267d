import { Effect, Schema } from "effect"
import { ProcessRunner } from "./ProcessRunner.js"

/** A git invocation that failed: the command could not start or exited non-zero. */
export class GitError extends Schema.TaggedError<GitError>()("GitError", {
  message: Schema.String,
  args: Schema.Array(Schema.String),
  exitCode: Schema.NullOr(Schema.Number),
  stderr: Schema.String
}) {}

export interface GitOptions {
  readonly cwd: string
  /** Extra environment, e.g. `GIT_AUTHOR_DATE` when a caller creates commits in its own workspace. */
  readonly env?: Readonly<Record<string, string>>
  readonly stdin?: string
}

/**
 * Runs the git CLI. Reads never take optional locks (`GIT_OPTIONAL_LOCKS=0`), so inspecting a user's
 * repository does not even refresh its index; nothing here writes unless the caller's arguments do.
 */
export class Git extends Effect.Service<Git>()("codex-replay/Git", {
  effect: Effect.gen(function*() {
    const runner = yield* ProcessRunner

    const run = Effect.fn("Git.run")(function*(args: ReadonlyArray<string>, options: GitOptions) {
      const stdout: Array<string> = []
      const stderr: Array<string> = []
      const exit = yield* runner.run({
        command: "git",
        args,
        cwd: options.cwd,
        env: {
          ...process.env,
          GIT_OPTIONAL_LOCKS: "0",
          GIT_TERMINAL_PROMPT: "0",
          LC_ALL: "C",
          ...options.env
        },
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        onLine: (stream, line) => Effect.sync(() => (stream === "stdout" ? stdout : stderr).push(line))
      }).pipe(
        Effect.mapError((error) =>
          new GitError({ message: `git could not start: ${error.message}`, args: [...args], exitCode: null, stderr: "" })
        )
      )
      if (exit.exitCode !== 0) {
        const detail = stderr.join("\n").trim()
        return yield* new GitError({
          message: `git ${args[0] ?? ""} failed${detail === "" ? "" : `: ${detail.slice(0, 500)}`}`,
          args: [...args],
          exitCode: exit.exitCode,
          stderr: detail
        })
      }
      return stdout.join("\n")
    })

    /** Like `run`, but a failure is `undefined` (for probes such as "is this a repository?"). */
    const probe = (args: ReadonlyArray<string>, options: GitOptions) =>
      run(args, options).pipe(Effect.map((out): string | undefined => out), Effect.orElseSucceed(() => undefined))

    const lines = (args: ReadonlyArray<string>, options: GitOptions) =>
      run(args, options).pipe(Effect.map((out) => out.split("\n").filter((line) => line !== "")))

    return { run, probe, lines } as const
  }),
  dependencies: [ProcessRunner.Default]
}) {}
