/**
 * The one configuration every git process of the daemon runs with, whatever repository it runs in: the
 * user's repository (which anyone who can name it in a request may have written), a packaged sample, a
 * workspace an agent worked in. git reads the repository's own `.git/config` and attributes whatever we
 * do, so everything in them that can make git start a program is overridden on the command line (which
 * wins over every configuration file) or switched off by an option of the command itself:
 *
 * - no system or global configuration or system attributes (where a filter driver such as git-lfs, a
 *   template directory or a helper could be defined for a repository's attributes to select);
 * - hooks (`core.hooksPath`), fsmonitor (`core.fsmonitor` may name a program), pagers, editors,
 *   credential helpers, askpass, ssh commands, GPG programs (`log.showSignature`), the alternate-refs
 *   command, submodule recursion, automatic gc and maintenance;
 * - every transport but the local one git needs to fetch a commit into a workspace (`protocol.allow`),
 *   and lazy fetches of a partial clone (which would run a remote's configured upload-pack);
 * - textconv and external diff drivers (`--no-textconv --no-ext-diff`, added to every command that can
 *   produce a diff: a driver's name comes from attributes, so it cannot be overridden by name).
 *
 * Filters (clean, smudge, process) need a driver in the configuration: the daemon's workspaces and
 * snapshot repositories have none, and on the user's repository the daemon runs only commands that
 * compare commits or read objects, which never apply filters.
 */
export const NEUTRAL_GIT_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.untrackedCache", "false"],
  ["core.pager", "cat"],
  ["core.editor", ":"],
  ["sequence.editor", ":"],
  ["core.askPass", ""],
  ["core.sshCommand", "false"],
  ["core.alternateRefsCommand", "true"],
  ["credential.helper", ""],
  ["protocol.allow", "never"],
  ["submodule.recurse", "false"],
  ["log.showSignature", "false"],
  ["gpg.program", "false"],
  ["gpg.openpgp.program", "false"],
  ["gpg.x509.program", "false"],
  ["gpg.ssh.program", "false"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"]
]

/** Set for every git process, after the caller's own variables (a caller cannot undo them). */
export const NEUTRAL_GIT_ENVIRONMENT: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_PAGER: "cat",
  GIT_EDITOR: ":",
  GIT_SEQUENCE_EDITOR: ":",
  GIT_ASKPASS: "",
  GIT_NO_LAZY_FETCH: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  LC_ALL: "C"
}

/**
 * The environment of a git process: the daemon's own without any `GIT_*` variable it inherited (one of
 * them could inject configuration, an external diff or an ssh command) or `SSH_ASKPASS`, then the
 * caller's, then the neutral values.
 */
export const neutralGitEnvironment = (
  inherited: Readonly<Record<string, string | undefined>>,
  caller: Readonly<Record<string, string>> = {}
): Record<string, string> => {
  const environment: Record<string, string> = {}
  for (const [name, value] of Object.entries(inherited)) {
    if (value !== undefined && !name.startsWith("GIT_") && name !== "SSH_ASKPASS") environment[name] = value
  }
  return { ...environment, ...caller, ...NEUTRAL_GIT_ENVIRONMENT }
}

/** Commands that can produce a diff, and so could run a textconv or external diff driver. */
const DIFF_COMMANDS = new Set(["diff", "diff-tree", "diff-index", "diff-files", "log", "show", "whatchanged", "format-patch"])
/** Global options that take the next argument as their value. */
const GLOBAL_OPTIONS_WITH_VALUE = new Set(["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"])
const DRIVERS_OFF = ["--no-textconv", "--no-ext-diff"]

/** Where the command (`diff`, `fetch`…) is among git's arguments, after the global options. */
const commandIndex = (args: ReadonlyArray<string>) => {
  let index = 0
  while (index < args.length && args[index]!.startsWith("-")) index += GLOBAL_OPTIONS_WITH_VALUE.has(args[index]!) ? 2 : 1
  return index
}

/** The command's name, for messages. */
export const gitCommandName = (args: ReadonlyArray<string>) => args[commandIndex(args)] ?? ""

/**
 * The argument vector of one git command: `--no-pager` and the neutral `-c` settings first, then the
 * caller's arguments, with textconv and external diff drivers off for a command that can show a diff.
 */
export const neutralGitArguments = (args: ReadonlyArray<string>): Array<string> => {
  const index = commandIndex(args)
  const command = args[index]
  const drivers = command !== undefined && DIFF_COMMANDS.has(command)
    ? DRIVERS_OFF.filter((option) => !args.includes(option))
    : []
  return [
    "--no-pager",
    ...NEUTRAL_GIT_CONFIG.flatMap(([key, value]) => ["-c", `${key}=${value}`]),
    ...args.slice(0, index + 1),
    ...drivers,
    ...args.slice(index + 1)
  ]
}

/** What a local fetch or clone from a path needs on top: the file transport, and git's own upload-pack. */
export const LOCAL_TRANSPORT = ["-c", "protocol.file.allow=always"] as const
