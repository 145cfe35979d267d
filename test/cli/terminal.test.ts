import { describe, expect, it } from "@effect/vitest"
import { pageLine } from "../../src/cli/terminal.js"

describe("a page's closing line", () => {
  it("reads its counts with thousands separators and gives the next offset as the flag takes it", () => {
    expect(pageLine({ offset: 1000, shown: 20, total: 2002, hasMore: true }, "imported thread(s)")).toBe(
      "1,001–1,020 of 2,002 imported thread(s); more with --offset 1020."
    )
  })

  it("says nothing of more on the last page", () => {
    expect(pageLine({ offset: 0, shown: 3, total: 3, hasMore: false }, "run(s) in /runs")).toBe("1–3 of 3 run(s) in /runs.")
  })
})
