import type { CommandOutcome } from "../../domain/checks/outcomes.js"
import type { ApprovedCommand } from "../../domain/contracts/payloads.js"

/** One approved command as it runs in a state's sandbox, and how its end is counted. */

export const minutes = (seconds: number) =>
  seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? "" : "s"}` : `${seconds} second${seconds === 1 ? "" : "s"}`

/**
 * The command as Claude Code's Bash tool ran it, in bash, given as an argument (never pasted into a
 * script), in a process group of its own (`set -m`). Its output goes through a pipe: inside the sandbox
 * the standard streams are sockets, on which Node's asynchronous writes are lost when the process ends.
 * When the command ends, what it left running in its group (a server a test suite started) is killed,
 * so the pipe closes and the outcome is the command's; `pipefail` keeps its exit code.
 */
const WRAPPER = [
  "set -o pipefail",
  "( set -m; /bin/bash -c \"$1\" < /dev/null 2>&1 & pid=$!; wait \"$pid\"; status=$?; kill -KILL -- \"-$pid\" 2>/dev/null; exit \"$status\" ) | /bin/cat"
].join("; ")

export const shellFor = (command: string) => ["/bin/bash", "-c", WRAPPER, "codex-replay-check", command]

/** Why a state could not be checked; `state` when what the state holds may be the reason (see `CommandOutcome.cause`). */
export type Cause = "state" | "replay"

export const notRun = (command: ApprovedCommand, reason: string, cause: Cause = "replay"): CommandOutcome => ({
  command: command.command,
  directory: command.directory,
  status: "could_not_run",
  exit_code: null,
  reason,
  excerpt: "",
  elapsed_ms: 0,
  ...(cause === "state" ? { cause } : {})
})

/** How an ended command is counted: 127 and 126 are the shell's "not found" and "not executable". */
export const outcomeOf = (command: ApprovedCommand, exit: { exitCode: number | null; signal: string | null }, excerpt: string, elapsed: number): CommandOutcome => {
  const base = { command: command.command, directory: command.directory, excerpt, elapsed_ms: elapsed, exit_code: exit.exitCode }
  if (exit.exitCode === 0) return { ...base, status: "passed", reason: null }
  if (exit.exitCode === 127) return { ...base, status: "could_not_run", reason: "The command was not found in this state (exit code 127).", cause: "state" }
  if (exit.exitCode === 126) return { ...base, status: "could_not_run", reason: "The command could not be executed in this state (exit code 126).", cause: "state" }
  if (exit.exitCode === null) return { ...base, status: "failed", reason: `It was ended by ${exit.signal ?? "a signal"}.` }
  return { ...base, status: "failed", reason: null }
}

