/**
 * The layers of docs/architecture.md, read from the import graph of `src/`: the domain is pure, services
 * do not reach programs, programs do not reach the edges, and only the platform adapters touch the disk
 * through `node:fs`. A new import that breaks one of these fails here with the file and the import.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const SRC = resolve(import.meta.dirname, "../../src")

const sourceFiles = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

const LAYERS = ["domain", "services", "programs"] as const
/** 0 domain, 1 services, 2 programs, 3 the edges (http, rpc, mcp, cli, the wiring and the embedding). */
const layerOf = (file: string) => {
  const top = relative(SRC, file).split("/")[0] ?? ""
  const index = (LAYERS as ReadonlyArray<string>).indexOf(top)
  return index === -1 ? LAYERS.length : index
}
const LAYER_NAMES = [...LAYERS, "the edges"]

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g

interface Import {
  readonly file: string
  readonly specifier: string
  /** The imported source file, for a relative import. */
  readonly target: string | undefined
}

const imports: ReadonlyArray<Import> = sourceFiles(SRC).flatMap((file) =>
  [...readFileSync(file, "utf8").matchAll(SPECIFIER)].map((match) => {
    const specifier = match[1] ?? match[2] ?? ""
    const target = specifier.startsWith(".") ? resolve(dirname(file), specifier.replace(/\.js$/, ".ts")) : undefined
    return { file, specifier, target }
  })
)

const show = ({ file, specifier }: Import) => `${relative(SRC, file)} imports ${specifier}`

describe("the import graph of src", () => {
  it("reads every source file's imports", () => {
    // A parser that found nothing would pass every rule below.
    expect(imports.length).toBeGreaterThan(500)
    expect(imports.some((entry) => entry.target !== undefined && layerOf(entry.target) === 0)).toBe(true)
  })

  it("points only downwards: domain ← services ← programs ← edges", () => {
    const upwards = imports.filter((entry) => entry.target !== undefined && layerOf(entry.target) > layerOf(entry.file))
    expect(upwards.map((entry) => `${show(entry)} (${LAYER_NAMES[layerOf(entry.file)]} → ${LAYER_NAMES[layerOf(entry.target!)]})`)).toEqual([])
  })

  it("keeps the domain free of I/O: no file system, process, thread or network module", () => {
    const io = /^(node:)?(fs|fs\/promises|child_process|worker_threads|net|http|https|os|readline)$/
    const found = imports.filter((entry) => layerOf(entry.file) === 0 && io.test(entry.specifier))
    expect(found.map(show)).toEqual([])
  })

  it("keeps the contracts free of side effects: they import effect and pure domain modules only", () => {
    const contracts = join(SRC, "domain", "contracts")
    const found = imports.filter((entry) =>
      entry.file.startsWith(contracts) &&
      (entry.target === undefined ? entry.specifier !== "effect" : layerOf(entry.target) !== 0)
    )
    expect(found.map(show)).toEqual([])
  })

  it("keeps the page on the domain: its value imports reach only its own modules and pure domain modules, none importing Node", () => {
    const page = join(SRC, "page")
    const pageFiles = readdirSync(page).filter((name) => /\.(ts|js)$/.test(name)).map((name) => join(page, name))
    // Type-only imports are erased from the bundle: what the page runs is what its value imports reach.
    const importsOf = (file: string) =>
      [...readFileSync(file, "utf8").matchAll(SPECIFIER)].filter((match) => !/^\s*(import|export) type\s/.test(match[0])).map((match) => match[1] ?? match[2] ?? "").map((specifier) => ({
        file,
        specifier,
        target: specifier.startsWith(".") ? resolve(dirname(file), specifier).replace(/\.js$/, "") : undefined
      }))
    const sourceOf = (target: string) => [`${target}.ts`, `${target}.js`].find((candidate) => sourceFiles(SRC).includes(candidate) || pageFiles.includes(candidate))
    const reached = new Set<string>()
    const found: Array<string> = []
    const visit = (file: string) => {
      if (reached.has(file)) return
      reached.add(file)
      for (const entry of importsOf(file)) {
        if (entry.target === undefined) {
          if (entry.specifier !== "effect") found.push(`${relative(SRC, file)} imports ${entry.specifier}`)
          continue
        }
        const source = sourceOf(entry.target)
        if (source === undefined) found.push(`${relative(SRC, file)} imports ${entry.specifier}, which is no source file`)
        else if (!source.startsWith(page) && layerOf(source) !== 0) found.push(`${relative(SRC, file)} imports ${entry.specifier} (not the domain)`)
        else visit(source)
      }
    }
    pageFiles.forEach(visit)
    // The page does reach the report modules it renders with.
    expect([...reached].map((file) => relative(SRC, file))).toContain("domain/report/evaluationTable.ts")
    expect(found).toEqual([])
  })

  it("imports node:fs only in the platform adapters", () => {
    const platform = join(SRC, "services", "platform")
    const found = imports.filter((entry) => /^(node:)?fs(\/promises)?$/.test(entry.specifier) && !entry.file.startsWith(platform))
    expect(found.map(show)).toEqual([])
  })
})

describe("the command line's terminal", () => {
  it("is read in one place: no command reads the process's environment, home, folder or streams itself", () => {
    // src/cli/io.ts is the terminal (CommandLineIo); main.ts, runMode.ts and daemonMode.ts are the binary's own start and end.
    const own = new Set(["io.ts", "main.ts", "runMode.ts", "daemonMode.ts"].map((name) => join(SRC, "cli", name)))
    const reads = /\bprocess\.(env|cwd|stdout|stderr|stdin)\b|\bhomedir\(|\bconsole\./
    const found = sourceFiles(join(SRC, "cli")).filter((file) => !own.has(file)).flatMap((file) =>
      readFileSync(file, "utf8").split("\n").flatMap((line, index) => (reads.test(line) ? [`${relative(SRC, file)}:${index + 1}: ${line.trim()}`] : [])))
    expect(found).toEqual([])
  })
})

describe("the size of src's files", () => {
  it("keeps every source file under 400 lines", () => {
    const long = sourceFiles(SRC)
      .map((file) => ({ file: relative(SRC, file), lines: readFileSync(file, "utf8").split("\n").length }))
      .filter(({ lines }) => lines > 400)
    expect(long).toEqual([])
  })
})
