import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { turnInliningBackOn, turnInliningOff } from "../../src/services/internal/v8Inlining.js"
import { REPO } from "../rpc/support.js"
import { v8FlagsAsAtStart } from "../support/v8Flags.js"

describe("V8's inlining while a listing's workers parse", () => {
  it("is off for the whole process from the first pool that asks, and back on when the last one is done", () => {
    expect(v8FlagsAsAtStart()).toBe(true)
    turnInliningOff()
    expect(v8FlagsAsAtStart()).toBe(false)
    turnInliningOff()
    turnInliningBackOn()
    expect(v8FlagsAsAtStart()).toBe(false)
    turnInliningBackOn()
    expect(v8FlagsAsAtStart()).toBe(true)
  })

  it("is not turned back on more times than it was turned off", () => {
    turnInliningBackOn()
    expect(v8FlagsAsAtStart()).toBe(true)
    turnInliningOff()
    expect(v8FlagsAsAtStart()).toBe(false)
    turnInliningBackOn()
    expect(v8FlagsAsAtStart()).toBe(true)
  })
})

describe("V8's inlining in a process started with an inlining flag of its own", () => {
  it("is left as the process was started", () => {
    const module = pathToFileURL(path.join(REPO, "dist", "services", "internal", "v8Inlining.js")).href
    const script = `
const { turnInliningOff, turnInliningBackOn } = await import(process.argv[1])
const vm = await import("node:vm")
const source = (n) => \`(function () { return 1 + 1 })() // \${n}\`
const cache = new vm.Script(source(0)).createCachedData()
const asAtStart = (n) => new vm.Script(source(n), { cachedData: cache }).cachedDataRejected !== true
turnInliningOff()
const whileOff = asAtStart(1)
turnInliningBackOn()
process.stdout.write(JSON.stringify({ whileOff, after: asAtStart(2) }))`
    for (const flag of ["--no-turbo-inlining", "--turbo-inlining", "--no-turbo_inlining"]) {
      const run = spawnSync(process.execPath, [flag, "--input-type=module", "-e", script, module], { encoding: "utf8" })
      expect({ flag, status: run.status, flags: run.stdout }).toEqual({
        flag,
        status: 0,
        flags: JSON.stringify({ whileOff: true, after: true })
      })
    }
  })
})
