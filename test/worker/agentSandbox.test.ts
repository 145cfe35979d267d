import { describe, expect, it } from "@effect/vitest"
import { agentEnvironment, codexProcessEnvironment, coversHome, sandboxConfig, toolchainDirectories, toolchainSecrets } from "../../src/domain/agentSandbox.js"

const daemonEnvironment = {
  PATH: "/home/u/.nvm/versions/node/v22.1.0/bin:/home/u/.cargo/bin:/home/u/.local/bin:/home/u/bin:/opt/go/bin:/usr/bin:/bin",
  HOME: "/home/u",
  LANG: "en_US.UTF-8",
  LC_ALL: "en_US.UTF-8",
  TERM: "xterm",
  USER: "u",
  NVM_DIR: "/home/u/.nvm",
  HTTPS_PROXY: "http://proxy.example:3128",
  CODEX_HOME: "/home/u/.codex",
  CODEX_API_KEY: "sk-secret",
  OPENAI_BASE_URL: "https://api.example",
  CODEX_REPLAY_CONTROLLER_PORT: "4173",
  CODEX_REPLAY_CONTROLLER_SESSION_ID: "s1",
  CODEX_REPLAY_RUN_ROOT: "/home/u/.cache/codex-replay/runs",
  CODEX_REPLAY_RUN_TAG: "run-1",
  CLAUDE_CONFIG_DIR: "/home/u/.claude",
  GITHUB_TOKEN: "ghp_secret",
  SSH_AUTH_SOCK: "/run/user/1000/ssh.sock",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1000/bus",
  UNSET: undefined
}

describe("the environments", () => {
  it("an implementer's shell gets the allow-list, its own TMPDIR and caches, and the network settings; nothing of ours, no key, token or socket", () => {
    const environment = agentEnvironment({ environment: daemonEnvironment, network: true, scratchDirectory: "/tmp/tmp-abc" })
    expect(environment).toEqual({
      PATH: daemonEnvironment.PATH,
      HOME: "/home/u",
      LANG: "en_US.UTF-8",
      LC_ALL: "en_US.UTF-8",
      TERM: "xterm",
      USER: "u",
      NVM_DIR: "/home/u/.nvm",
      HTTPS_PROXY: "http://proxy.example:3128",
      TMPDIR: "/tmp/tmp-abc",
      XDG_CACHE_HOME: "/tmp/tmp-abc/.cache",
      npm_config_cache: "/tmp/tmp-abc/.npm"
    })
  })

  it("a reviewer's shell has no TMPDIR and no network settings", () => {
    const environment = agentEnvironment({ environment: daemonEnvironment, network: false })
    expect(Object.keys(environment).sort()).toEqual(["HOME", "LANG", "LC_ALL", "NVM_DIR", "PATH", "TERM", "USER"])
  })

  it("the Codex process keeps its home, key and settings, and nothing of ours or of the user's other secrets", () => {
    const environment = codexProcessEnvironment(daemonEnvironment)
    expect(environment).toMatchObject({ CODEX_HOME: "/home/u/.codex", CODEX_API_KEY: "sk-secret", OPENAI_BASE_URL: "https://api.example", HTTPS_PROXY: "http://proxy.example:3128" })
    for (const name of ["CODEX_REPLAY_CONTROLLER_PORT", "CODEX_REPLAY_RUN_TAG", "CLAUDE_CONFIG_DIR", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "AWS_SECRET_ACCESS_KEY", "DBUS_SESSION_BUS_ADDRESS", "UNSET"]) {
      expect(environment[name]).toBeUndefined()
    }
  })
})

describe("the toolchains an implementation may read", () => {
  it("the home's top-level folder of each PATH entry inside it, shared folders entry by entry, entries outside it, toolchain variables, ~/.rustup", () => {
    expect(toolchainDirectories(daemonEnvironment, "/home/u")).toEqual([
      "/home/u/.nvm",
      "/home/u/.cargo",
      "/home/u/.local/bin",
      "/home/u/bin",
      "/opt/go/bin",
      "/usr/bin",
      "/bin",
      "/home/u/.rustup"
    ])
  })

  it("the home itself is never a toolchain, nor a folder holding it, however it is spelled", () => {
    expect(toolchainDirectories({ PATH: "/home/u:/home/u/:/home:/", JAVA_HOME: "/home/u", GOPATH: "/home/u/" }, "/home/u")).toEqual([])
    expect(toolchainDirectories({ PATH: "/home/u/bin" }, "/home/u/")).toEqual(["/home/u/bin"])
  })

  it("a PATH entry in an ordinary home folder grants that entry, never the folder a saved report may sit in", () => {
    const PATH = "/home/u/Downloads/google-cloud-sdk/bin:/home/u/code/app/node_modules/.bin:/home/u/development/flutter/bin"
    expect(toolchainDirectories({ PATH }, "/home/u")).toEqual(PATH.split(":"))
    expect(coversHome("/home/u/Downloads/google-cloud-sdk/bin", "/home/u")).toBe(false)
    expect(coversHome("/home", "/home/u/")).toBe(true)
  })
})

describe("the permission profile", () => {
  const filesystemOf = (config: ReadonlyArray<string>) => config.find((entry) => entry.startsWith("permissions.codex_replay.filesystem="))
  const hiddenRoots = ["/home/u/.cache/codex-replay/runs", "/home/u/.cache/codex-replay/controllers", "/home/u/.claude", "/home/u/.codex", "/tmp"]

  it("an implementation: the minimal system, the Codex install and toolchains to read, its workspace and scratch to write, network, its own shell environment, no login shell", () => {
    const config = sandboxConfig({
      writable: true,
      workingDirectory: "/home/u/.cache/codex-replay/runs/run-1/workspaces/codex",
      readable: ["/opt/codex/node_modules/@openai", "/home/u/.nvm"],
      hiddenRoots,
      scratchDirectory: "/tmp/tmp-abc123",
      shellEnvironment: { PATH: "/usr/bin:/bin", HOME: "/home/u", TMPDIR: "/tmp/tmp-abc123" }
    })
    expect(config).toEqual([
      `default_permissions="codex_replay"`,
      `permissions.codex_replay.filesystem={":minimal" = "read", "/opt/codex/node_modules/@openai" = "read", "/home/u/.nvm" = "read", "/home/u/.cache/codex-replay/runs/run-1/workspaces/codex" = "write", "/tmp/tmp-abc123" = "write"}`,
      `permissions.codex_replay.network={"enabled" = true}`,
      `shell_environment_policy={"inherit" = "none", "set" = {"PATH" = "/usr/bin:/bin", "HOME" = "/home/u", "TMPDIR" = "/tmp/tmp-abc123"}}`,
      "allow_login_shell=false"
    ])
  })

  it("a reviewer reads its workspace and the Codex install only, offline", () => {
    const config = sandboxConfig({
      writable: false,
      workingDirectory: "/tmp/workspace-AbC123",
      readable: ["/opt/codex/bin"],
      hiddenRoots,
      shellEnvironment: {}
    })
    expect(filesystemOf(config)).toBe(`permissions.codex_replay.filesystem={":minimal" = "read", "/opt/codex/bin" = "read", "/tmp/workspace-AbC123" = "read"}`)
    expect(config).toContain(`permissions.codex_replay.network={"enabled" = false}`)
  })

  it("a hidden root inside a read grant is hidden; a grant inside a hidden root is dropped; paths with dots, quotes and spaces stay one key", () => {
    const config = sandboxConfig({
      writable: false,
      workingDirectory: "/srv/w",
      readable: ["/home/u/my \"tools\".v2", "/home/u/.codex/plugins"],
      hiddenRoots: ["/home/u/my \"tools\".v2/cache", "/home/u/.codex"],
      shellEnvironment: { A: "x\"y" }
    })
    expect(filesystemOf(config)).toBe(
      `permissions.codex_replay.filesystem={":minimal" = "read", "/home/u/my \\"tools\\".v2" = "read", "/home/u/my \\"tools\\".v2/cache" = "none", "/srv/w" = "read"}`
    )
    expect(config).toContain(`shell_environment_policy={"inherit" = "none", "set" = {"A" = "x\\"y"}}`)
  })
})

describe("secrets inside a toolchain's folder", () => {
  it("Cargo's registry tokens are hidden where the toolchain is granted (CARGO_HOME or ~/.cargo); a check has no network of Codex's", () => {
    expect(toolchainSecrets({}, "/home/ada")).toEqual(["/home/ada/.cargo/credentials", "/home/ada/.cargo/credentials.toml"])
    expect(toolchainSecrets({ CARGO_HOME: "/opt/cargo" }, "/home/ada")).toEqual(["/opt/cargo/credentials", "/opt/cargo/credentials.toml"])
    const config = sandboxConfig({
      writable: true,
      network: false,
      workingDirectory: "/cache/checks/state-1/workspaces/copy",
      readable: ["/home/ada/.cargo"],
      hiddenRoots: toolchainSecrets({}, "/home/ada"),
      shellEnvironment: {}
    })
    expect(config[1]).toContain(`"/home/ada/.cargo" = "read"`)
    expect(config[1]).toContain(`"/home/ada/.cargo/credentials.toml" = "none"`)
    expect(config[2]).toBe(`permissions.codex_replay.network={"enabled" = false}`)
  })
})
