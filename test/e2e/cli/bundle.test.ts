import { describe, expect, it } from "@effect/vitest"
import { Worker as EffectWorker } from "@effect/platform"
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import { Effect, Layer } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Worker } from "node:worker_threads"
import { importsByOwnPath } from "../../../scripts/modulesByOwnPath.js"
import { digestSession, type SessionDigest, type SessionFiles } from "../../../src/domain/history/reader.js"
import { ClaudeHistory } from "../../../src/services/history/ClaudeHistory.js"
import { readChunks } from "../../../src/services/platform/transcriptFiles.js"
import { Settings } from "../../../src/services/Settings.js"
import { CLAUDE_HOME, settingsFor } from "../../history/support.js"
import { spawnCli } from "../../cli/support.js"
import { installEnv, REPO, scratch } from "../../rpc/support.js"

/** The command line's bundle (`npm run build` makes it); every test that spawns the binary runs it. */
const BUNDLE = path.join(REPO, "dist", "bundle")

const bundleFiles = () => fs.readdirSync(BUNDLE).filter((name) => name.endsWith(".mjs"))

describe("the bundled command line", () => {
  it("is what bin/codex-replay.js starts for every command: main.mjs, beside the parse worker, and nothing else", () => {
    const bin = fs.readFileSync(path.join(REPO, "bin", "codex-replay.js"), "utf8")
    expect(bin).toContain(`import("../dist/bundle/main.mjs")`)
    expect(bin).not.toMatch(/require\(|\.cjs/)
    expect(bundleFiles()).toEqual(expect.arrayContaining(["main.mjs", "parseWorker.mjs"]))
    expect(fs.readdirSync(BUNDLE).filter((name) => !name.endsWith(".mjs"))).toEqual([])
  })

  it("keeps the Claude Agent SDK in a chunk of its own that only a dynamic import reaches (decision 0010)", () => {
    const sdk = bundleFiles().filter((name) => fs.readFileSync(path.join(BUNDLE, name), "utf8").includes("node_modules/@anthropic-ai/claude-agent-sdk/"))
    expect(sdk).toHaveLength(1)
    const others = bundleFiles().filter((name) => name !== sdk[0]).map((name) => fs.readFileSync(path.join(BUNDLE, name), "utf8"))
    expect(others.some((text) => text.includes(`import("./${sdk[0]}")`))).toBe(true)
    expect(others.filter((text) => text.includes(`from "./${sdk[0]}"`))).toEqual([])
  })

  it("says to build first, and exits 1, when the bundle is missing (a listing or any other command)", () => {
    const install = fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-unbuilt-"))
    try {
      fs.mkdirSync(path.join(install, "bin"))
      fs.copyFileSync(path.join(REPO, "bin", "codex-replay.js"), path.join(install, "bin", "codex-replay.js"))
      for (const args of [["threads", "--json"], ["--version"]]) {
        const started = spawnSync(process.execPath, [path.join(install, "bin", "codex-replay.js"), ...args], { encoding: "utf8" })
        expect(started.status).toBe(1)
        expect(started.stdout).toBe("")
        expect(started.stderr).toMatch(/^codex-replay could not start: .+\nRun "npm run build" first\.\n$/)
      }
    } finally {
      fs.rmSync(install, { recursive: true, force: true })
    }
  })

  it("finds every file it locates beside its own modules (the worker) and its package (version, static assets, samples)", () => {
    const located = new Map<string, string>()
    for (const name of bundleFiles()) {
      const source = fs.readFileSync(path.join(BUNDLE, name), "utf8")
      for (const match of source.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) located.set(match[1]!, name)
    }
    expect([...located.keys()]).toEqual(expect.arrayContaining(["./parseWorker.mjs"]))
    // The `.ts` and `.js` ones are the branches taken only when the modules run from src (under tsx or vitest) or dist.
    const missing = [...located.keys()].filter((target) => !/\.[jt]s$/.test(target) && !fs.existsSync(path.resolve(BUNDLE, target)))
    expect(missing).toEqual([])
    // The package's own files are found from its package.json, whose depth differs between src/, dist/ and the
    // bundle; the daemon tests load the page and the samples through the bundle too.
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string }
    const version = execFileSync(process.execPath, [path.join(REPO, "bin", "codex-replay.js"), "--version"], { encoding: "utf8" })
    expect(version.trim()).toBe(manifest.version)
  })

  it("summarises sessions on its parse worker exactly as the listing does in process", async () => {
    const locations = await Effect.runPromise(
      Effect.flatMap(ClaudeHistory, (history) => history.discover()).pipe(
        Effect.provide(ClaudeHistory.Default.pipe(Layer.provide(Settings.layer(settingsFor(CLAUDE_HOME)))))
      )
    )
    expect(locations.length).toBeGreaterThanOrEqual(8)
    const onWorker = Effect.gen(function*() {
      const pool = yield* EffectWorker.makePool<SessionFiles, SessionDigest, unknown>({ size: 1 })
      return yield* Effect.forEach(locations, (location) =>
        pool.executeEffect({
          threadId: location.threadId,
          mainPath: location.main.path,
          agentPaths: location.agents.map((stamp) => stamp.path)
        }))
    }).pipe(Effect.scoped, Effect.provide(NodeWorker.layer(() => new Worker(path.join(BUNDLE, "parseWorker.mjs")))))
    const digests = await Effect.runPromise(onWorker)
    for (const [index, location] of locations.entries()) {
      const files: SessionFiles = {
        threadId: location.threadId,
        mainPath: location.main.path,
        agentPaths: location.agents.map((stamp) => stamp.path)
      }
      expect(digests[index]).toEqual(await digestSession(files, readChunks))
    }
  })

  it("bundles only what it uses of a module imported through a package's index", () => {
    // Schemas that effect/Schema defines and this project never uses: bundled (and made at every start) only
    // when the whole module is, as an object of all its exports.
    const unused = /BooleanFromString|Uint8ArrayFromBase64|fast-check/
    for (const name of bundleFiles()) {
      expect({ name, unused: unused.test(fs.readFileSync(path.join(BUNDLE, name), "utf8")) }).toEqual({ name, unused: false })
    }
  })
})

describe("the command line as a process", () => {
  it("ends quietly, as SIGPIPE would (141), when its reader stops early (| head)", async () => {
    const running = spawnCli(["threads", "--json", "--limit", "100"], installEnv(scratch("codex-replay-cli-pipe-")))
    // The reader is gone before the listing writes a byte: its write meets a closed pipe (EPIPE).
    running.child.stdout!.destroy()
    const result = await running.done
    expect(result.stderr).toBe("")
    expect(result.code).toBe(141)
  })
})

describe("the imports the bundle takes from their own paths", () => {
  it("rewrites a module imported from a package's index, keeps its local name and the index's functions", () => {
    expect(importsByOwnPath(`import { Effect, Layer } from "effect";\nimport { Schema as S, pipe } from "effect";`)).toBe(
      `import * as Effect from "effect/Effect"; import * as Layer from "effect/Layer";\n` +
        `import * as S from "effect/Schema"; import { pipe } from "effect";`
    )
    expect(importsByOwnPath(`import { HttpServerRequest } from "@effect/platform";`)).toBe(
      `import * as HttpServerRequest from "@effect/platform/HttpServerRequest";`
    )
  })

  it("leaves every other import as it is", () => {
    const others = [
      `import { pipe, flow } from "effect";`,
      `import * as Schema from "effect/Schema";`,
      `import { Effect } from "effect-extra";`,
      `import { readFile } from "node:fs";`,
      `const text = 'import { Effect } from "effect";'`,
      `export { Effect } from "effect";`,
      `import {} from "effect";`,
      `import { Either /* a comment */ } from "effect";`,
      `import {\n  Effect\n} from "effect";`
    ].join("\n")
    expect(importsByOwnPath(others)).toBe(others)
  })

  it("binds, in every such import of the built modules, each local name to the module the index exports under its name", async () => {
    const imported = /^import \{([^}]*)\} from "(effect|@effect\/[\w-]+)";$/gm
    const bindings = new Map<string, { readonly index: string; readonly name: string; readonly specifier: string }>()
    for (const file of fs.readdirSync(path.join(REPO, "dist"), { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".js") || file.startsWith("bundle")) continue
      for (const [line, names, index] of fs.readFileSync(path.join(REPO, "dist", file), "utf8").matchAll(imported)) {
        const rewritten = new Map(
          [...importsByOwnPath(line).matchAll(/import \* as (\w+) from "([^"]+)";/g)].map(([, local, specifier]) => [local!, specifier!])
        )
        for (const specifier of names!.split(",").map((name) => name.trim())) {
          const [name, local = name] = specifier.split(/\s+as\s+/) as [string, string?]
          if (/^[A-Z]/.test(name)) bindings.set(`${index}:${name}:${local}`, { index: index!, name, specifier: rewritten.get(local) ?? "(none)" })
        }
      }
    }
    expect(bindings.size).toBeGreaterThan(20)
    for (const { index, name, specifier } of bindings.values()) {
      const exported = ((await import(index)) as Record<string, unknown>)[name]
      const bound = specifier === "(none)" ? undefined : await import(specifier)
      expect({ index, name, specifier, same: bound === exported }).toEqual({ index, name, specifier, same: true })
    }
  })
})
