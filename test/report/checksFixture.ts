import { type CommandOutcome, compareChecks, type StateChecks } from "../../src/domain/checks/outcomes.js"

/** A command whose text would be markup, and one with a control character a terminal would obey. */
export const HOSTILE_COMMAND = `node --test "<b>x</b>" && echo '<script>1</script>'`
export const CONTROL_COMMAND = "npm run lint\u001b[2J"

const outcome = (command: string, status: CommandOutcome["status"], excerpt: string, directory = "."): CommandOutcome => ({
  command,
  directory,
  status,
  exit_code: status === "passed" ? 0 : status === "failed" ? 1 : null,
  reason: status === "could_not_run" ? "npx is not installed here." : status === "timed_out" ? "It ran past 300 seconds." : null,
  excerpt,
  elapsed_ms: 1200
})

const state = (statuses: ReadonlyArray<CommandOutcome["status"]>, name: string): StateChecks => ({
  setup: [outcome("npm ci", "passed", `${name}: added 12 packages`)],
  checks: [
    outcome("npm test", statuses[0]!, `${name}: 3 tests <ok>`),
    outcome(HOSTILE_COMMAND, statuses[1]!, `${name}: hostile`),
    outcome(CONTROL_COMMAND, statuses[2]!, `${name}: lint`, "packages/web")
  ],
  elapsed_ms: 5000
})

/**
 * The start fails `npm test`; Codex fixes it and Claude's result still fails it; the hostile command
 * passes everywhere; the lint could not run on Claude's result (not counted against it).
 */
export const sampleChecks = () =>
  compareChecks({
    timeLimitSeconds: 300,
    setup: [{ command: "npm ci", directory: "." }],
    commands: [
      { command: "npm test", directory: "." },
      { command: HOSTILE_COMMAND, directory: "." },
      { command: CONTROL_COMMAND, directory: "packages/web" }
    ],
    start: state(["failed", "passed", "passed"], "start"),
    claude: state(["failed", "passed", "could_not_run"], "claude"),
    codex: state(["passed", "passed", "passed"], "codex")
  })
