/**
 * A repository that plants every git setting able to start a program, replayed through the real daemon
 * (inspect, prepare, start, collection, review, report) with a hostile global configuration and
 * environment too: no planted program runs. And the repository a request names must be the thread's.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  approveAndStart,
  awaitTerminal,
  type Daemon,
  gitAt,
  gitConfig,
  killAllDaemons,
  makeRepository,
  runDirectories,
  scratch,
  startDaemon,
  type TestRepository
} from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const HOOKS = [
  "pre-commit", "post-checkout", "post-index-change", "fsmonitor-watchman", "pre-auto-gc", "reference-transaction",
  "post-rewrite", "pre-push", "post-merge", "push-to-checkout", "pre-receive", "update", "post-update"
]

/** Executable scripts, each leaving its marker when run (and passing its input through, as a filter would). */
const markingScripts = (root: string, markers: string) => {
  const bin = path.join(root, "hostile-bin")
  fs.mkdirSync(bin, { recursive: true })
  return (name: string) => {
    const script = path.join(bin, name)
    fs.writeFileSync(script, `#!/bin/sh\ntouch '${path.join(markers, name)}'\n[ -f "$1" ] && cat "$1" || cat\n`, { mode: 0o755 })
    return script
  }
}

/** Plants, in the repository's own configuration and attributes, every setting that can make git start a program. */
const plantEverything = (repository: string, root: string, markers: string) => {
  const mark = markingScripts(root, markers)
  const gitDir = path.join(repository, ".git")
  const hooks = path.join(root, "hostile-hooks")
  fs.mkdirSync(hooks, { recursive: true })
  for (const hook of HOOKS) {
    for (const directory of [hooks, path.join(gitDir, "hooks")]) {
      fs.writeFileSync(path.join(directory, hook), `#!/bin/sh\ntouch '${path.join(markers, `hook-${hook}`)}'\n`, { mode: 0o755 })
    }
  }
  // An alternate object store, so that a command listing alternate refs would run core.alternateRefsCommand.
  const other = path.join(root, "alternate")
  fs.mkdirSync(other, { recursive: true })
  gitAt(other, undefined, "init", "--quiet", "--bare")
  fs.mkdirSync(path.join(gitDir, "objects", "info"), { recursive: true })
  fs.writeFileSync(path.join(gitDir, "objects", "info", "alternates"), `${path.join(other, "objects")}\n`)
  fs.appendFileSync(path.join(gitDir, "config"), [
    "[core]",
    `\tfsmonitor = ${mark("fsmonitor")}`,
    `\thooksPath = ${hooks}`,
    `\tpager = ${mark("pager")}`,
    `\teditor = ${mark("editor")}`,
    `\taskPass = ${mark("askpass")}`,
    `\tsshCommand = ${mark("ssh-command")}`,
    `\talternateRefsCommand = ${mark("alternate-refs-command")}`,
    "[sequence]",
    `\teditor = ${mark("sequence-editor")}`,
    "[credential]",
    `\thelper = !${mark("credential-helper")}`,
    "[gpg]",
    `\tprogram = ${mark("gpg")}`,
    "[gpg \"ssh\"]",
    `\tprogram = ${mark("gpg-ssh")}`,
    "[log]",
    "\tshowSignature = true",
    "[pager]",
    `\tlog = ${mark("pager-log")}`,
    `\tdiff = ${mark("pager-diff")}`,
    "[diff]",
    `\texternal = ${mark("diff-external")}`,
    "[diff \"evil\"]",
    `\ttextconv = ${mark("textconv")}`,
    `\tcommand = ${mark("diff-command")}`,
    "[filter \"evil\"]",
    `\tclean = ${mark("filter-clean")}`,
    `\tsmudge = ${mark("filter-smudge")}`,
    `\tprocess = ${mark("filter-process")}`,
    "\trequired = false",
    "[merge \"evil\"]",
    `\tdriver = ${mark("merge-driver")}`,
    "[remote \"origin\"]",
    `\turl = ${other}`,
    `\tuploadpack = ${mark("remote-uploadpack")}`,
    `\treceivepack = ${mark("remote-receivepack")}`,
    "[uploadpack]",
    `\tpackObjectsHook = ${mark("pack-objects-hook")}`,
    "[submodule]",
    "\trecurse = true",
    ""
  ].join("\n"))
  fs.mkdirSync(path.join(gitDir, "info"), { recursive: true })
  fs.writeFileSync(path.join(gitDir, "info", "attributes"), "* diff=evil filter=evil merge=evil\n")
  return mark
}

/** A hostile global configuration and environment in the daemon's own environment, which git must not take either. */
const hostileEnvironment = (root: string, mark: (name: string) => string) => {
  const global = path.join(root, "hostile-global.gitconfig")
  fs.writeFileSync(global, [
    "[filter \"evil\"]", `\tsmudge = ${mark("global-smudge")}`, `\tclean = ${mark("global-clean")}`,
    "[diff \"evil\"]", `\ttextconv = ${mark("global-textconv")}`,
    "[core]", `\tfsmonitor = ${mark("global-fsmonitor")}`,
    ""
  ].join("\n"))
  return {
    GIT_CONFIG_GLOBAL: global,
    GIT_EXTERNAL_DIFF: mark("env-external-diff"),
    GIT_PAGER: mark("env-pager"),
    GIT_SSH_COMMAND: mark("env-ssh-command"),
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "diff.evil.textconv",
    GIT_CONFIG_VALUE_0: mark("env-config-textconv")
  }
}

describe("a repository planting every git setting that can run a command", () => {
  let daemon: Daemon
  let repository: TestRepository
  let markers: string

  beforeAll(async () => {
    const root = scratch()
    markers = path.join(root, "markers")
    fs.mkdirSync(markers)
    repository = makeRepository(root)
    // The tree carries attributes too, selecting the planted drivers for every file.
    fs.writeFileSync(path.join(repository.directory, ".gitattributes"), "* diff=evil filter=evil merge=evil\n")
    repository.git("add", ".gitattributes")
    repository.git("commit", "--quiet", "-m", "attributes")
    const withAttributes = { ...repository, ending: repository.git("rev-parse", "HEAD") }
    repository = withAttributes
    const mark = plantEverything(repository.directory, root, markers)
    daemon = await startDaemon({ root, env: hostileEnvironment(root, mark) })
  }, 30_000)
  afterAll(() => daemon.stop())

  it("is inspected, prepared, replayed, collected, reviewed and reported without running any of them", async () => {
    const inspected = await daemon.call("inspect_thread", { thread_id: repository.threadId, repo: repository.directory })
    expect(inspected.baseline.repository).toBe(repository.directory)
    const started = await approveAndStart(daemon, gitConfig(repository))
    const run = await awaitTerminal(daemon, started.run_id)
    expect(run.status).toBe("completed")
    const report = await daemon.call("get_report", { run_id: started.run_id })
    expect(JSON.stringify(report)).toContain("claude's answer")
    // The daemon read the patch as git stores it: no textconv or external diff rewrote it.
    const saved = JSON.parse(fs.readFileSync(run.report_json, "utf8"))
    expect(saved.candidates.claude.patch).toContain("+claude's answer")
    expect(saved.candidates.claude.patch).toContain("diff --git a/.gitattributes b/.gitattributes")
    // The workspace was checked out without the planted smudge filter (global or the repository's).
    expect(fs.readFileSync(path.join(run.workspace, "app.txt"), "utf8")).toBe("baseline\n")
    expect(fs.readdirSync(markers)).toEqual([])
  }, 60_000)

  it("refuses it for a packaged sample's thread in one sentence, and runs nothing", async () => {
    const before = runDirectories(daemon.runRoot)
    const refusal = await daemon.refused("prepare_run", gitConfig(repository, { thread_id: "sample-word-count" }))
    expect(refusal).toMatch(/^The packaged sample sample-word-count replays only its own repository, and .+ is not it\.$/)
    // Not even when the request says the user chose it.
    expect(await daemon.refused("prepare_run", gitConfig(repository, { thread_id: "sample-word-count", confirm_repository_selection: true })))
      .toMatch(/replays only its own repository/)
    expect(runDirectories(daemon.runRoot)).toEqual(before)
    expect(fs.readdirSync(markers)).toEqual([])
  })
})

describe("the repository a replay names", () => {
  let daemon: Daemon
  let own: TestRepository
  let elsewhere: TestRepository

  beforeAll(async () => {
    const root = scratch()
    own = makeRepository(root)
    // A repository outside the controller's cache, not the thread's working directory.
    elsewhere = makeRepository(scratch(), "elsewhere")
    daemon = await startDaemon({ root })
  }, 30_000)
  afterAll(() => daemon.stop())

  it("is the thread's working directory, or a subfolder or link of its repository", async () => {
    fs.mkdirSync(path.join(own.directory, "sub"))
    expect((await daemon.call("prepare_run", gitConfig(own))).status).toBe("ready_for_approval")
    expect((await daemon.call("prepare_run", gitConfig(own, { repo: path.join(own.directory, "sub") }))).status).toBe("ready_for_approval")
    const link = path.join(scratch(), "link")
    fs.symlinkSync(own.directory, link)
    expect((await daemon.call("prepare_run", gitConfig(own, { repo: link }))).status).toBe("ready_for_approval")
  })

  it("refuses another folder unless the user chose it, and never one of the controller's own", async () => {
    const foreign = gitConfig(own, { repo: elsewhere.directory, baseline_commit: elsewhere.baseline, ending_commit: elsewhere.ending })
    expect(await daemon.refused("prepare_run", foreign)).toBe(
      `The folder ${elsewhere.directory} is not the thread's working directory (${own.directory}): ` +
        `to replay the thread there, pass --repo ${elsewhere.directory} or tick “I have reviewed this repository and these commits” in Configure.`
    )
    expect((await daemon.call("prepare_run", { ...foreign, confirm_repository_selection: true })).status).toBe("ready_for_approval")
    // A folder of the controller's cache (here: a clone inside the run root) is never a replay's repository.
    const inCache = path.join(daemon.runRoot, "clone")
    gitAt(path.dirname(daemon.runRoot), undefined, "clone", "--quiet", own.directory, inCache)
    expect(await daemon.refused("prepare_run", gitConfig(own, { repo: inCache, confirm_repository_selection: true })))
      .toMatch(/belongs to Codex Replay or to Claude, so it cannot be a replay's repository\.$/)
  })

  it("is checked again at start: a link switched to another repository after approval is refused", async () => {
    const link = path.join(scratch(), "switch")
    fs.symlinkSync(own.directory, link)
    const config = gitConfig(own, { repo: link })
    const prepared = await daemon.call("prepare_run", config)
    fs.unlinkSync(link)
    fs.symlinkSync(elsewhere.directory, link)
    expect(await daemon.refused("start_run", { ...config, approved: true, prepare_token: prepared.prepare_token }))
      .toMatch(/is not the thread's working directory/)
    expect(runDirectories(daemon.runRoot).filter((name) => name !== "clone")).toEqual([])
  })
})
