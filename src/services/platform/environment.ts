import { Context, Layer } from "effect"
import * as os from "node:os"

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

/** The home folder an environment names (`HOME`), else the system's record of this user's home. */
export const homeDirectoryOf = (environment: EnvironmentVariables) => environment.HOME ?? os.homedir()

/** This user's home as the system records it, whatever `HOME` says (what a sandbox protects). */
export const systemHomeDirectory = () => os.homedir()

/** The system's temporary directory (`TMPDIR`, else `/tmp`, as Node resolves it). */
export const systemTemporaryDirectory = () => os.tmpdir()
