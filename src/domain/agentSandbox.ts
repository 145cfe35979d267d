import * as path from "node:path"

/**
 * What an agent may see: the Codex permission profile (an allow-list of paths) and the environment of
 * its shell commands. Pure: the worker resolves paths and checks what exists.
 */

/** The name of the permission profile every worker runs under. */
export const PERMISSION_PROFILE = "codex_replay"

/** Variables an agent's shell receives from ours when they are set (besides the `LC_*` family). */
const SHELL_VARIABLES = [
  "PATH", "HOME", "LANG", "LANGUAGE", "TERM", "USER", "LOGNAME", "SHELL", "TZ",
  // Toolchains (the directories they name are granted for reading too).
  "NVM_DIR", "NVM_BIN", "NVM_INC", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "GOPATH", "GOROOT",
  "GOMODCACHE", "JAVA_HOME", "PYENV_ROOT", "VOLTA_HOME", "BUN_INSTALL", "DENO_DIR", "DENO_INSTALL", "SDKMAN_DIR"
] as const

/** The network settings of the user's machine, which an implementation needs to reach the internet. */
const NETWORK_VARIABLES = [
  "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
  "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"
] as const

/** Variables naming directories a toolchain lives in. */
export const TOOLCHAIN_DIRECTORY_VARIABLES = [
  "NVM_DIR", "CARGO_HOME", "RUSTUP_HOME", "GOPATH", "GOROOT", "GOMODCACHE", "JAVA_HOME", "PYENV_ROOT",
  "VOLTA_HOME", "BUN_INSTALL", "DENO_DIR", "DENO_INSTALL", "SDKMAN_DIR"
] as const

/**
 * Our own variables: never given to Codex, let alone to an agent. The worker adds the run tag and
 * attempt id back for the Codex process alone, so the daemon can find and sweep it.
 */
export const isOwnVariable = (name: string) => name.startsWith("CODEX_REPLAY_") || name === "CLAUDE_CONFIG_DIR"

/** Variables the Codex process itself receives: what its agents get, plus Codex's own settings and key. */
const isCodexProcessVariable = (name: string) =>
  !isOwnVariable(name) && (
    (SHELL_VARIABLES as ReadonlyArray<string>).includes(name) ||
    (NETWORK_VARIABLES as ReadonlyArray<string>).includes(name) ||
    name.startsWith("LC_") ||
    name === "TMPDIR" ||
    name === "RUST_LOG" ||
    name.startsWith("CODEX_") ||
    name.startsWith("OPENAI_") ||
    // The knobs of the project's test double of the Codex CLI (the real binary ignores them).
    name.startsWith("FAKE_CODEX_")
  )

type Environment = Readonly<Record<string, string | undefined>>

const pick = (environment: Environment, keep: (name: string) => boolean) =>
  Object.fromEntries(
    Object.entries(environment).filter((entry): entry is [string, string] => entry[1] !== undefined && keep(entry[0]))
  )

/** The Codex process's environment: an allow-list of ours, never the whole of it. */
export const codexProcessEnvironment = (environment: Environment): Record<string, string> =>
  pick(environment, isCodexProcessVariable)

/**
 * The environment of an agent's shell commands, built for it: the allow-listed variables of ours, its
 * own TMPDIR (and caches inside it) when it has a scratch directory, network settings only when it has
 * network. Nothing of the controller, the run or Claude's history; no key, no token.
 */
export const agentEnvironment = (input: {
  readonly environment: Environment
  readonly network: boolean
  readonly scratchDirectory?: string | undefined
}): Record<string, string> => {
  const base = pick(input.environment, (name) =>
    !isOwnVariable(name) && (
      (SHELL_VARIABLES as ReadonlyArray<string>).includes(name) ||
      name.startsWith("LC_") ||
      (input.network && (NETWORK_VARIABLES as ReadonlyArray<string>).includes(name))
    ))
  const scratch = input.scratchDirectory
  return scratch === undefined ? base : {
    ...base,
    TMPDIR: scratch,
    XDG_CACHE_HOME: path.join(scratch, ".cache"),
    npm_config_cache: path.join(scratch, ".npm")
  }
}

const isInside = (child: string, parent: string) =>
  child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`)

/**
 * Folders of the home that are whole toolchain installations (a version manager's root, Go's workspace):
 * a PATH entry inside one grants the installation, since its binaries read the versions beside them.
 */
const TOOLCHAIN_HOME_ROOTS = new Set([
  ".nvm", ".fnm", ".volta", ".nodenv", ".bun", ".deno", ".cargo", ".rustup", ".pyenv", ".rbenv", ".goenv",
  ".jenv", ".sdkman", ".asdf", ".ghcup", ".elan", ".juliaup", ".dotnet", "go"
])

const withoutTrailingSlash = (directory: string) => {
  const normalized = path.normalize(directory)
  return normalized.length > 1 ? normalized.replace(/\/+$/, "") : normalized
}

/**
 * Secrets kept inside a toolchain's folder, which a read grant of that folder would otherwise cover:
 * Cargo's registry tokens. Hidden from every agent and check.
 */
export const toolchainSecrets = (environment: Environment, home: string): ReadonlyArray<string> => {
  const cargo = environment.CARGO_HOME !== undefined && path.isAbsolute(environment.CARGO_HOME) ? environment.CARGO_HOME : path.join(home, ".cargo")
  return [path.join(cargo, "credentials"), path.join(cargo, "credentials.toml")]
}

/** A grant never covers the home folder as a whole: it would bring a saved report or another clone in. */
export const coversHome = (directory: string, home: string) => isInside(withoutTrailingSlash(home), withoutTrailingSlash(directory))

/**
 * The directories the toolchains on `PATH` need, for an implementation: each PATH entry as it is, or
 * for one inside a known toolchain installation of the home (`~/.nvm`, `~/.cargo`, `~/.pyenv`, `~/go`,
 * …) that installation; plus the directories toolchain variables name, and `~/.rustup` next to
 * `~/.cargo`. Nothing that is the home or holds it (`/home`, `/`, `$HOME/`) is granted, so a PATH
 * entry such as `~/Downloads/sdk/bin` grants that folder and never `~/Downloads`.
 */
export const toolchainDirectories = (environment: Environment, home: string): ReadonlyArray<string> => {
  const root = withoutTrailingSlash(home)
  const directories: Array<string> = []
  const entries = (environment.PATH ?? "").split(path.delimiter).filter((entry) => path.isAbsolute(entry))
  for (const entry of entries) {
    const normalized = withoutTrailingSlash(entry)
    const top = isInside(normalized, root) && normalized !== root ? normalized.slice(root.length + 1).split("/")[0]! : undefined
    directories.push(top !== undefined && TOOLCHAIN_HOME_ROOTS.has(top) ? path.join(root, top) : normalized)
  }
  for (const name of TOOLCHAIN_DIRECTORY_VARIABLES) {
    const value = environment[name]
    if (value !== undefined && path.isAbsolute(value)) directories.push(withoutTrailingSlash(value))
  }
  if (directories.includes(path.join(root, ".cargo"))) directories.push(path.join(root, ".rustup"))
  return [...new Set(directories)].filter((directory) => !coversHome(directory, root))
}

/** A TOML inline table; JSON string literals are valid TOML basic strings. */
const inlineTable = (entries: ReadonlyArray<readonly [string, string]>) =>
  `{${entries.map(([key, value]) => `${JSON.stringify(key)} = ${value}`).join(", ")}}`

export interface SandboxInput {
  /** An implementation: writes its working directory, has network and a scratch directory. */
  readonly writable: boolean
  /** Whether the network is open; by default an implementation's is and a reviewer's is not (a check's never is). */
  readonly network?: boolean
  readonly workingDirectory: string
  /** Directories and files granted for reading: the Codex executable's own, toolchains. */
  readonly readable: ReadonlyArray<string>
  /** Directories no agent may read; hidden where a read grant would cover them. */
  readonly hiddenRoots: ReadonlyArray<string>
  /** The agent's own temporary directory (writable), when it has one. */
  readonly scratchDirectory?: string | undefined
  /** The environment of the agent's shell commands (see `agentEnvironment`). */
  readonly shellEnvironment: Readonly<Record<string, string>>
}

/**
 * The raw `--config` values of a worker's sandbox. The filesystem is an allow-list: Codex's
 * `":minimal"` (the system directories a shell and the Codex executable need: /usr, /bin, /lib*, /etc,
 * /proc, /dev) plus the read grants and the working directory (writable for an implementation, which
 * also gets its scratch directory). A hidden root inside a read grant is `"none"`; a read grant inside
 * a hidden root is dropped. Network only for an implementation. The shell environment is exactly
 * `shellEnvironment` (Codex adds its own `CODEX_*` session variables), without a login shell that would
 * read the home folder's profile. Paths are table keys, written as one inline table: a dotted `-c` key
 * would split a path at its dots.
 */
export const sandboxConfig = (input: SandboxInput): ReadonlyArray<string> => {
  const own = [input.workingDirectory, ...(input.scratchDirectory === undefined ? [] : [input.scratchDirectory])]
  const readable = [...new Set(input.readable)].filter((grant) =>
    !own.some((directory) => isInside(grant, directory)) && !input.hiddenRoots.some((root) => isInside(grant, root)))
  const hidden = [...new Set(input.hiddenRoots)].filter((root) =>
    readable.some((grant) => isInside(root, grant) && root !== grant) && !own.some((directory) => isInside(directory, root)))
  const filesystem: Array<readonly [string, string]> = [
    [":minimal", `"read"`],
    ...readable.map((grant) => [grant, `"read"`] as const),
    ...hidden.map((root) => [root, `"none"`] as const),
    [input.workingDirectory, input.writable ? `"write"` : `"read"`],
    ...(input.writable && input.scratchDirectory !== undefined ? [[input.scratchDirectory, `"write"`] as const] : [])
  ]
  const variables = Object.entries(input.shellEnvironment).map(([name, value]) => [name, JSON.stringify(value)] as const)
  return [
    `default_permissions=${JSON.stringify(PERMISSION_PROFILE)}`,
    `permissions.${PERMISSION_PROFILE}.filesystem=${inlineTable(filesystem)}`,
    `permissions.${PERMISSION_PROFILE}.network=${inlineTable([["enabled", (input.network ?? input.writable) ? "true" : "false"]])}`,
    `shell_environment_policy=${inlineTable([["inherit", `"none"`], ["set", inlineTable(variables)]])}`,
    "allow_login_shell=false"
  ]
}
