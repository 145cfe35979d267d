import { Effect } from "effect"
import * as path from "node:path"
import { agentEnvironment, PERMISSION_PROFILE, sandboxConfig, toolchainSecrets } from "../../domain/agentSandbox.js"
import { homeDirectoryOf, systemTemporaryDirectory } from "../platform/environment.js"
import { codexInstallation, implementationReadable, resolveHiddenRoots } from "../worker/prepare.js"
import { locateCodex } from "../platform/codexCli.js"

/**
 * How an approved command runs under Codex's own sandbox (`codex sandbox`): the same permission profile
 * an implementation gets — the system's minimal directories, the Codex install and the toolchains on
 * PATH for reading, the copy and its scratch directory for writing, nothing of ours — with the network
 * open for set-up commands only. The command's environment is built for it (`agentEnvironment`): no key,
 * no token, no variable of ours.
 */

export interface SandboxPlace {
  /** The fresh copy of the state: the command's only writable place besides its scratch directory. */
  readonly copy: string
  readonly scratch: string
  /** An empty Codex home of the copy's own: the user's Codex configuration is neither read nor changed. */
  readonly codexHome: string
  /** Directories no command may read (the user's repository, the run root, the cache). */
  readonly hiddenRoots: ReadonlyArray<string>
}

export interface SandboxInvocation {
  readonly executable: string
  /** `codex sandbox` and its configuration, for a command in `directory` with or without network. */
  readonly argumentsFor: (directory: string, network: boolean) => ReadonlyArray<string>
  readonly environmentFor: (network: boolean) => Record<string, string>
}

/** The Codex CLI and its sandbox arguments for one copy, or why Codex cannot be found. */
export const sandboxInvocation = (
  cliPath: string | undefined,
  environment: Readonly<Record<string, string | undefined>>,
  place: SandboxPlace
) =>
  Effect.gen(function*() {
    const located = yield* locateCodex(cliPath, environment)
    if (!located.found) return yield* Effect.fail(located.message)
    const executable = located.path
    const userCodexHome = environment.CODEX_HOME ?? path.join(homeDirectoryOf(environment), ".codex")
    const hidden = yield* resolveHiddenRoots(
      [...place.hiddenRoots, userCodexHome, systemTemporaryDirectory(), ...toolchainSecrets(environment, homeDirectoryOf(environment))],
      executable,
      place.copy
    )
    const readable = [yield* codexInstallation(executable), ...(yield* implementationReadable(environment))]
    const environmentFor = (network: boolean) =>
      agentEnvironment({ environment, network, scratchDirectory: place.scratch })
    const argumentsFor = (directory: string, network: boolean) => [
      "sandbox",
      ...sandboxConfig({
        writable: true,
        network,
        workingDirectory: place.copy,
        readable,
        hiddenRoots: hidden,
        scratchDirectory: place.scratch,
        shellEnvironment: environmentFor(network)
      }).flatMap((value) => ["-c", value]),
      "-P",
      PERMISSION_PROFILE,
      "-C",
      directory
    ]
    return {
      executable,
      argumentsFor,
      // The Codex process itself: the command's environment, its own empty home, nothing else of ours.
      environmentFor: (network: boolean) => ({ ...environmentFor(network), CODEX_HOME: place.codexHome })
    } satisfies SandboxInvocation
  })
