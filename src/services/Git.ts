import { Effect, Schema } from "effect"
import { gitCommandName, neutralGitArguments, neutralGitEnvironment } from "./internal/gitNeutral.js"
import { ProcessRunner } from "./ProcessRunner.js"

/** A git invocation that failed: the command could not start or exited non-zero. */
export class GitError extends Schema.TaggedError<GitError>()("GitError", {
  message: Schema.String,
  args: Schema.Array(Schema.String),
  exitCode: Schema.NullOr(Schema.Number),
  stderr: Schema.String
}) {}

const shellQuote = (argument: string) => `'${argument.replaceAll("'", "'\\''")}'`

export interface GitOptions {
  readonly cwd: string
  /** Extra environment (a private `GIT_INDEX_FILE`, the run's tag); it never overrides the neutral values. */
  readonly env?: Readonly<Record<string, string>>
  readonly stdin?: string
  /** Receives stdout in pieces as it arrives (the answer is then empty): for output the caller bounds itself. */
  readonly onStdout?: (chunk: Buffer) => void
}

/**
 * Runs the git CLI, always with the neutral configuration (internal/gitNeutral.ts): no repository, system
 * or global setting can make it start a program, whoever wrote the repository. Reads never take optional
 * locks (`GIT_OPTIONAL_LOCKS=0`), so inspecting a user's repository does not even refresh its index;
 * nothing here writes unless the caller's arguments do.
 */
export class Git extends Effect.Service<Git>()("codex-replay/Git", {
  effect: Effect.gen(function*() {
    const runner = yield* ProcessRunner

    /** Runs `command` (git, or a shell running several gits) with git's environment; a failure is `what` failed. */
    const execute = Effect.fn("Git.execute")(function*(
      command: string,
      args: ReadonlyArray<string>,
      what: string,
      gitArgs: ReadonlyArray<string>,
      options: GitOptions
    ) {
      const stdout: Array<string> = []
      const stderr: Array<string> = []
      const exit = yield* runner.run({
        command,
        args,
        cwd: options.cwd,
        env: neutralGitEnvironment(runner.environment, options.env),
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        ...(options.onStdout === undefined ? {} : { onStdout: options.onStdout }),
        onLine: (stream, line) => Effect.sync(() => (stream === "stdout" ? stdout : stderr).push(line))
      }).pipe(
        Effect.mapError((error) =>
          new GitError({ message: `git could not start: ${error.message}`, args: [...gitArgs], exitCode: null, stderr: "" })
        )
      )
      if (exit.exitCode !== 0) {
        const detail = stderr.join("\n").trim()
        return yield* new GitError({
          message: `${what} failed${detail === "" ? ` with exit code ${exit.exitCode}` : `: ${detail.slice(0, 500)}`}`,
          args: [...gitArgs],
          exitCode: exit.exitCode,
          stderr: detail
        })
      }
      return stdout.join("\n")
    })

    const run = (args: ReadonlyArray<string>, options: GitOptions) =>
      execute("git", neutralGitArguments(args), `git ${gitCommandName(args)}`, args, options)

    /**
     * Several git commands as one process (`sh -c` with `set -e`), stopping at the first that fails: one
     * process to start, tag and stop. Answers the last command's output.
     */
    const sequence = (commands: ReadonlyArray<ReadonlyArray<string>>, options: GitOptions) =>
      execute(
        "sh",
        ["-c", ["set -e", ...commands.map((command) => ["git", ...neutralGitArguments(command)].map(shellQuote).join(" "))].join("\n")],
        "git",
        commands.flat(),
        options
      )

    /** Like `run`, but a failure is `undefined` (for probes such as "is this a repository?"). */
    const probe = (args: ReadonlyArray<string>, options: GitOptions) =>
      run(args, options).pipe(Effect.map((out): string | undefined => out), Effect.orElseSucceed(() => undefined))

    const lines = (args: ReadonlyArray<string>, options: GitOptions) =>
      run(args, options).pipe(Effect.map((out) => out.split("\n").filter((line) => line !== "")))

    return { run, sequence, probe, lines } as const
  }),
  dependencies: [ProcessRunner.Default]
}) {}
