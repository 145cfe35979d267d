import { Context, Layer } from "effect"

export type EnvironmentVariables = Readonly<Record<string, string | undefined>>

/**
 * The environment this process was started with, the one place it enters the services: children inherit it
 * (git with its neutral values on top, Codex with a filtered copy, the daemon with its settings). Unless a
 * layer provides another one (an embedding, a test), it is the process's own.
 */
export class ProcessEnvironment extends Context.Reference<ProcessEnvironment>()("codex-replay/ProcessEnvironment", {
  defaultValue: (): EnvironmentVariables => process.env
}) {
  static readonly layer = (environment: EnvironmentVariables) => Layer.succeed(ProcessEnvironment, environment)
}
