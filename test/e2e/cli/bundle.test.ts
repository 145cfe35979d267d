import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Worker } from "node:worker_threads"
import { importsByOwnPath } from "../../../scripts/modulesByOwnPath.js"
import { digestSession, type SessionFiles } from "../../../src/domain/history/reader.js"
import type { SummaryReply } from "../../../src/domain/history/summaryWorker.js"
import { ClaudeHistory } from "../../../src/services/ClaudeHistory.js"
import { readChunks } from "../../../src/services/internal/transcriptFiles.js"
import { Settings } from "../../../src/services/Settings.js"
import { CLAUDE_HOME, settingsFor } from "../../history/support.js"
import { REPO } from "../../rpc/support.js"

/** The command line's bundle (`npm run build` makes it); every test that spawns the binary runs it. */
const BUNDLE = path.join(REPO, "dist", "bundle")

const bundleFiles = () => fs.readdirSync(BUNDLE).filter((name) => name.endsWith(".mjs"))
const LISTING = path.join(BUNDLE, "listing.cjs")

describe("the bundled command line", () => {
  it("is what bin/codex-replay.js starts: a listing by its CommonJS launcher, anything else by main.mjs", () => {
    const bin = fs.readFileSync(path.join(REPO, "bin", "codex-replay.js"), "utf8")
    expect(bin).toContain(`import("../dist/bundle/main.mjs")`)
    expect(bin).toContain(`require("../dist/bundle/listingLauncher.cjs")`)
    expect(JSON.parse(fs.readFileSync(path.join(REPO, "bin", "package.json"), "utf8"))).toEqual({ type: "commonjs" })
    expect(bundleFiles()).toEqual(expect.arrayContaining(["main.mjs", "summaryWorker.mjs"]))
    expect(fs.existsSync(LISTING)).toBe(true)
    const launcher = fs.readFileSync(path.join(BUNDLE, "listingLauncher.cjs"), "utf8")
    expect(launcher).toContain("./listing.cjs")
    expect(launcher).not.toMatch(/\bimport\(|main\.mjs/)
  })

  it("says to build first, and exits 1, when the bundle is missing (a listing or any other command)", () => {
    const install = fs.mkdtempSync(path.join(os.tmpdir(), "codex-replay-unbuilt-"))
    try {
      fs.mkdirSync(path.join(install, "bin"))
      for (const name of ["codex-replay.js", "package.json"]) {
        fs.copyFileSync(path.join(REPO, "bin", name), path.join(install, "bin", name))
      }
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

  it("lists threads from a bundle of the listing alone, which finds its worker beside the others", () => {
    const source = fs.readFileSync(LISTING, "utf8")
    // Nothing of the controller, the run engine or the Codex SDK: a listing does not load them.
    expect(source).not.toMatch(/@openai\/codex-sdk|controller-server\.json|tools\/call|jsonrpc/)
    const located = [...source.matchAll(/new URL\("([^"]+)",\s*__bundleUrl\)/g)].map((match) => match[1]!)
    expect(located).toEqual(expect.arrayContaining(["./summaryWorker.mjs"]))
    const missing = located.filter((target) => !target.endsWith(".ts") && !fs.existsSync(path.resolve(BUNDLE, target)))
    expect(missing).toEqual([])
  })

  it("finds every file it locates beside its own modules (the worker) and its package (version, static assets, samples)", () => {
    const located = new Map<string, string>()
    for (const name of bundleFiles()) {
      const source = fs.readFileSync(path.join(BUNDLE, name), "utf8")
      for (const match of source.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) located.set(match[1]!, name)
    }
    expect([...located.keys()]).toEqual(expect.arrayContaining(["./summaryWorker.mjs"]))
    // The `.ts` ones are the branch taken only when the modules run from src (under tsx or vitest).
    const missing = [...located.keys()].filter((target) => !target.endsWith(".ts") && !fs.existsSync(path.resolve(BUNDLE, target)))
    expect(missing).toEqual([])
    // The package's own files are found from its package.json, whose depth differs between src/, dist/ and the
    // bundle; the daemon tests load the page and the samples through the bundle too.
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string }
    const version = execFileSync(process.execPath, [path.join(REPO, "bin", "codex-replay.js"), "--version"], { encoding: "utf8" })
    expect(version.trim()).toBe(manifest.version)
  })

  it("summarises sessions on its own worker entry exactly as the listing does in process", async () => {
    const locations = await Effect.runPromise(
      Effect.flatMap(ClaudeHistory, (history) => history.discover()).pipe(
        Effect.provide(ClaudeHistory.Default.pipe(Layer.provide(Settings.layer(settingsFor(CLAUDE_HOME)))))
      )
    )
    expect(locations.length).toBeGreaterThanOrEqual(8)
    const worker = new Worker(path.join(BUNDLE, "summaryWorker.mjs"))
    try {
      for (const [id, location] of locations.entries()) {
        const files: SessionFiles = {
          threadId: location.threadId,
          mainPath: location.main.path,
          agentPaths: location.agents.map((stamp) => stamp.path)
        }
        const reply = new Promise<SummaryReply>((resolve) => worker.once("message", resolve))
        worker.postMessage({ id, files })
        expect(await reply).toEqual({ id, ok: true, digest: await digestSession(files, readChunks) })
      }
    } finally {
      await worker.terminate()
    }
  })

  it("bundles only what it uses of a module imported through a package's index", () => {
    // Schemas that effect/Schema defines and this project never uses: bundled (and made at every start) only
    // when the whole module is, as an object of all its exports.
    const unused = /BooleanFromString|Uint8ArrayFromBase64|fast-check/
    for (const name of ["listing.cjs", ...bundleFiles()]) {
      expect({ name, unused: unused.test(fs.readFileSync(path.join(BUNDLE, name), "utf8")) }).toEqual({ name, unused: false })
    }
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
