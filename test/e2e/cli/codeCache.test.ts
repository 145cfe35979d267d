import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { CLAUDE_HOME } from "../../history/support.js"
import { installEnv, REPO, scratch } from "../../rpc/support.js"
import { runCli } from "../../cli/support.js"

/** tsc's output of the loader (`npm run build` makes it), run in a process of its own as the command line runs it. */
const LOADER = pathToFileURL(path.join(REPO, "dist", "services", "internal", "codeCache.js")).href

let root: string
let bundle: string
let cache: string

beforeEach(() => {
  root = scratch("codex-replay-code-cache-")
  bundle = path.join(root, "bundle.cjs")
  cache = path.join(root, "cache", "index", "listing-code-v1.bin")
  writeBundle("sum")
})

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true })
})

/** A small CommonJS bundle that uses what Node's loader gives a module and exits with `exitCode`. */
const writeBundle = (label: string, exitCode = 0) =>
  fs.writeFileSync(
    bundle,
    `const path = require("node:path")
const add = (left, right) => left + right
process.stdout.write(\`${label} \${path.basename(__filename)} \${add(1, 2)} \${typeof module.exports}\\n\`)
process.exitCode = ${exitCode}
`
  )

/** Runs the bundle through the loader; stderr says whether the cache was used. */
const runBundle = () => {
  const result = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      "const { runWithCodeCache } = await import(process.argv[1]); process.stderr.write(runWithCodeCache(process.argv[2], process.argv[3]))",
      LOADER,
      bundle,
      cache
    ],
    { encoding: "utf8" }
  )
  return { code: result.status, stdout: result.stdout, used: result.stderr }
}

const mode = (target: string) => fs.statSync(target).mode & 0o777

describe("the listing's code cache", () => {
  it("is written privately after a first run and used by the next, which answers the same", () => {
    const first = runBundle()
    expect(first).toEqual({ code: 0, stdout: "sum bundle.cjs 3 object\n", used: "compiled" })
    expect(mode(cache)).toBe(0o600)
    expect(mode(path.dirname(cache))).toBe(0o700)
    expect(runBundle()).toEqual({ ...first, used: "cached" })
    expect(fs.readdirSync(path.dirname(cache))).toEqual(["listing-code-v1.bin"])
  })

  it("is not used, and is written again, when it is damaged, truncated or not a cache at all", () => {
    const expected = runBundle().stdout
    const good = fs.readFileSync(cache)
    const damaged = Buffer.from(good)
    damaged[damaged.length - 10]! ^= 0xff
    // The format before this one (a 91-byte header), with the same bytecode.
    const previous = Buffer.concat([Buffer.from("codex-replay code cache v1\n"), good.subarray(32, 96), good.subarray(96)])
    for (const content of [damaged, good.subarray(0, good.length - 100), previous, Buffer.from("not a code cache"), Buffer.alloc(0)]) {
      fs.writeFileSync(cache, content)
      expect(runBundle()).toEqual({ code: 0, stdout: expected, used: "compiled" })
      expect(fs.readFileSync(cache).equals(content)).toBe(false)
      expect(runBundle().used).toBe("cached")
    }
  })

  it("is not used when others could have written it", () => {
    runBundle()
    fs.chmodSync(cache, 0o622)
    expect(runBundle().used).toBe("compiled")
    expect(mode(cache)).toBe(0o600)
    expect(runBundle().used).toBe("cached")
  })

  it("belongs to one build of the bundle: a changed bundle compiles and replaces it", () => {
    runBundle()
    writeBundle("changed")
    expect(runBundle()).toEqual({ code: 0, stdout: "changed bundle.cjs 3 object\n", used: "compiled" })
    expect(runBundle().used).toBe("cached")
  })

  it("is taken from beside the bundle (the build's) when the user has none, and then not written", () => {
    runBundle()
    const shipped = path.join(root, "listing-code-v1.bin")
    fs.renameSync(cache, shipped)
    fs.chmodSync(shipped, 0o644)
    expect(runBundle()).toEqual({ code: 0, stdout: "sum bundle.cjs 3 object\n", used: "shipped" })
    expect(fs.existsSync(cache)).toBe(false)
  })

  it("is not taken from beside the bundle when others could have written it, or it is damaged or of another build", () => {
    runBundle()
    const shipped = path.join(root, "listing-code-v1.bin")
    const good = fs.readFileSync(cache)
    fs.rmSync(cache)
    for (const [content, fileMode] of [[good, 0o664], [good, 0o646], [good.subarray(0, good.length - 100), 0o644]] as const) {
      fs.writeFileSync(shipped, content)
      fs.chmodSync(shipped, fileMode)
      expect(runBundle()).toEqual({ code: 0, stdout: "sum bundle.cjs 3 object\n", used: "compiled" })
      expect(runBundle().used).toBe("cached")
      fs.rmSync(cache)
    }
    fs.writeFileSync(shipped, good)
    fs.chmodSync(shipped, 0o644)
    writeBundle("changed")
    expect(runBundle()).toEqual({ code: 0, stdout: "changed bundle.cjs 3 object\n", used: "compiled" })
    expect(runBundle().used).toBe("cached")
  })

  it("is not written by a run that fails, nor when its folder cannot be made", () => {
    writeBundle("failing", 3)
    expect(runBundle()).toEqual({ code: 3, stdout: "failing bundle.cjs 3 object\n", used: "compiled" })
    expect(fs.existsSync(cache)).toBe(false)
    writeBundle("sum")
    fs.writeFileSync(path.join(root, "cache"), "a file where the cache's folder would be")
    expect(runBundle()).toEqual({ code: 0, stdout: "sum bundle.cjs 3 object\n", used: "compiled" })
    expect(fs.readdirSync(root).sort()).toEqual(["bundle.cjs", "cache"])
  })
})

describe("codex-replay threads and its code cache", () => {
  const shipped = path.join(REPO, "dist", "bundle", "listing-code-v1.bin")

  it("starts from the cache the build ships, and answers the same from it or from one of its own", async () => {
    expect(mode(shipped)).toBe(0o644)
    expect(fs.statSync(shipped).size).toBeGreaterThan(100_000)
    const env = installEnv(root)
    const index = path.join(root, "cache", "index")
    const first = await runCli(["threads", "--json", "--limit", "100"], env)
    expect(first.code).toBe(0)
    // The shipped cache was good: no cache of the user's own.
    expect(fs.readdirSync(index)).toEqual(["threads-v2.jsonl"])
    expect(await runCli(["threads", "--json", "--limit", "100"], env)).toEqual(first)
    fs.writeFileSync(path.join(index, "listing-code-v1.bin"), "damaged")
    expect(await runCli(["threads", "--json", "--limit", "100"], env)).toEqual(first)
  })

  /**
   * An install of the built command line without the cache the build ships: a listing compiles and writes one of
   * the user's own at exit.
   */
  const installWithoutShippedCache = () => {
    const install = path.join(root, "install")
    for (const part of ["package.json", "bin", "samples", path.join("dist", "bundle")]) {
      fs.cpSync(path.join(REPO, part), path.join(install, part), { recursive: true })
    }
    fs.rmSync(path.join(install, "dist", "bundle", "listing-code-v1.bin"))
    return path.join(install, "bin", "codex-replay.js")
  }

  /**
   * 16 sessions of 4 MB, which a cold listing parses on worker threads (it starts them from 16 files and 64 MB),
   * each with its own message and request ids (the same ids would make them one resumed session's copies).
   */
  const historyForWorkers = () => {
    const home = path.join(root, "claude")
    const folder = path.join(home, "projects", "-workspace")
    fs.mkdirSync(folder, { recursive: true })
    const session = fs.readFileSync(path.join(CLAUDE_HOME, "projects", "-workspace", "c45af7b1-cb7c-4e51-93db-8cbb250a877a.jsonl"), "utf8")
    const padding = JSON.stringify({ type: "file-history-snapshot", messageId: "padding", snapshot: { padding: "x".repeat(4 * 1024 * 1024) } })
    for (let n = 0; n < 16; n++) {
      const ownIds = session.replaceAll(`"msg_`, `"msg_${n}_`).replaceAll(`"req_`, `"req_${n}_`)
      fs.writeFileSync(path.join(folder, `c45af7b1-cb7c-4e51-93db-${String(n).padStart(12, "0")}.jsonl`), `${padding}\n${ownIds}`)
    }
    return home
  }

  // The listing starts its workers on a machine of two cores or more (the CI's has two).
  it("keeps a cache of its own made after a cold listing on worker threads (which ran with V8's inlining off)", () => {
    const bin = installWithoutShippedCache()
    const env = installEnv(root, { CLAUDE_CONFIG_DIR: historyForWorkers() })
    const index = path.join(root, "cache", "index")
    const coldListing = () => {
      fs.rmSync(path.join(index, "threads-v2.jsonl"), { force: true })
      const listed = spawnSync(process.execPath, [bin, "threads", "--json", "--limit", "100"], { env, encoding: "utf8" })
      return { code: listed.status, threads: (JSON.parse(listed.stdout) as { total: number }).total }
    }
    expect(coldListing()).toEqual({ code: 0, threads: 16 })
    const own = fs.readFileSync(cache)
    const written = fs.statSync(cache).mtimeMs
    // Made with V8's flags as the next start has them, so the next listing uses it rather than writing another.
    expect(coldListing()).toEqual({ code: 0, threads: 16 })
    expect(fs.statSync(cache).mtimeMs).toBe(written)
    expect(fs.readFileSync(cache).equals(own)).toBe(true)
  }, 60_000)
})
