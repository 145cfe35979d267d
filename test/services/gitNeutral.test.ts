import { describe, expect, it } from "vitest"
import { gitCommandName, NEUTRAL_GIT_ENVIRONMENT, neutralGitArguments, neutralGitEnvironment } from "../../src/services/internal/gitNeutral.js"

const settingsOf = (argv: ReadonlyArray<string>) => argv.flatMap((arg, index) => (argv[index - 1] === "-c" ? [arg] : []))

describe("the neutral git command line", () => {
  it("puts --no-pager and every neutral setting before the caller's global options and command", () => {
    const argv = neutralGitArguments(["-C", "/w", "rev-parse", "HEAD"])
    expect(argv[0]).toBe("--no-pager")
    expect(argv.slice(-4)).toEqual(["-C", "/w", "rev-parse", "HEAD"])
    expect(settingsOf(argv)).toEqual(expect.arrayContaining([
      "core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat", "credential.helper=", "protocol.allow=never",
      "log.showSignature=false", "gpg.program=false", "core.sshCommand=false", "core.alternateRefsCommand=true", "submodule.recurse=false"
    ]))
  })

  it("turns textconv and external diff drivers off for every command that can show a diff, after global options", () => {
    for (const command of ["diff", "log", "show", "diff-tree", "format-patch"]) {
      const argv = neutralGitArguments(["-c", "x.y=z", "--git-dir", "/g", command, "a", "b"])
      expect(argv.slice(argv.indexOf(command))).toEqual([command, "--no-textconv", "--no-ext-diff", "a", "b"])
    }
    // Not twice, and not for commands that show no diff.
    expect(neutralGitArguments(["diff", "--no-ext-diff", "a"]).filter((arg) => arg === "--no-ext-diff")).toHaveLength(1)
    expect(neutralGitArguments(["rev-list", "HEAD"])).not.toContain("--no-textconv")
    expect(gitCommandName(["-c", "protocol.file.allow=always", "clone", "x"])).toBe("clone")
  })

  it("drops every inherited GIT_ variable and SSH_ASKPASS, keeps the caller's, and the neutral values win", () => {
    const environment = neutralGitEnvironment(
      { PATH: "/bin", GIT_EXTERNAL_DIFF: "evil", GIT_CONFIG_PARAMETERS: "'diff.x.textconv'='evil'", GIT_SSH_COMMAND: "evil", SSH_ASKPASS: "evil" },
      { GIT_INDEX_FILE: "/i", CODEX_REPLAY_RUN_TAG: "t", GIT_CONFIG_GLOBAL: "/home/u/.gitconfig" }
    )
    expect(environment).toEqual({ PATH: "/bin", GIT_INDEX_FILE: "/i", CODEX_REPLAY_RUN_TAG: "t", ...NEUTRAL_GIT_ENVIRONMENT })
    expect(environment.GIT_CONFIG_GLOBAL).toBe("/dev/null")
  })
})
