/**
 * A `CODEX_CLI_PATH` that names no executable, said before the command reads the history or starts a
 * controller: the same sentence the controller's start gives, so a mistake writes nothing.
 */
import { Effect } from "effect"
import { controllerUnavailable } from "../domain/errors.js"
import { INSTALL_CODEX } from "../services/platform/codexCli.js"
import { isExecutableFile } from "../services/platform/executables.js"

export const checkCodexPath = (env: NodeJS.ProcessEnv) =>
  Effect.suspend(() => {
    const cliPath = env.CODEX_CLI_PATH
    return cliPath !== undefined && cliPath.startsWith("/") && !isExecutableFile(cliPath)
      ? Effect.fail(controllerUnavailable(`The Codex CLI ${cliPath} (CODEX_CLI_PATH) does not exist or is not executable: ${INSTALL_CODEX}.`))
      : Effect.void
  })
