import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { vi } from "vitest"
import { ClaudeHistory } from "../../src/services/history/ClaudeHistory.js"
import { Settings } from "../../src/services/Settings.js"
import { PROJECTS, scratch, settingsFor } from "./support.js"

/** How often the service opened each file (its reads on the main thread go through `fs/promises`' open). */
const opened = vi.hoisted(() => new Map<string, number>())
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>()
  const open: typeof actual.open = (file, ...rest) => {
    opened.set(String(file), (opened.get(String(file)) ?? 0) + 1)
    return actual.open(file, ...rest)
  }
  return { ...actual, open, default: { ...actual, open } }
})

describe("a family of resumed sessions", () => {
  it("reads each earlier session for its response keys once, however many later ones repeat it", async () => {
    // Four copies of one session: the same first response makes them one family, each later one a resumed copy.
    const home = scratch("claude-family-")
    const folder = path.join(home, "projects", "-workspace")
    fs.mkdirSync(folder, { recursive: true })
    const session = fs.readFileSync(path.join(PROJECTS, "-workspace", "c45af7b1-cb7c-4e51-93db-8cbb250a877a.jsonl"))
    const members = ["a", "b", "c", "d"].map((letter) => path.join(folder, `${letter.repeat(8)}-cb7c-4e51-93db-8cbb250a877a.jsonl`))
    for (const member of members) fs.writeFileSync(member, session)
    const listing = await Effect.gen(function*() {
      const history = yield* ClaudeHistory
      return yield* history.list()
    }).pipe(
      Effect.provide(ClaudeHistory.layerWith({ workers: 0 }).pipe(Layer.provide(Settings.layer(settingsFor(home))))),
      Effect.runPromise
    )
    const byPath = new Map(listing.threads.map((thread) => [thread.source_path, thread]))
    // The first is the whole session; each later one repeats all of it, so its copies are left out.
    expect(byPath.get(members[0]!)?.tokens.output).toBeGreaterThan(0)
    expect(members.slice(1).map((member) => byPath.get(member)?.tokens.output)).toEqual([0, 0, 0])
    // Each is read once for its summary, each with a later member once for its keys, and each later one once
    // more for its summary without the copies.
    expect(members.map((member) => opened.get(member))).toEqual([2, 3, 3, 2])
  })
})
