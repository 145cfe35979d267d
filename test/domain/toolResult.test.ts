import { describe, expect, it } from "vitest"
import { boundText, toolSuccess } from "../../src/domain/toolResult.js"
import { MAX_TEXT_BYTES } from "../../src/domain/product.js"

describe("tool texts", () => {
  it("keep a text that fits, whatever its characters", () => {
    expect(boundText("ready", 5)).toBe("ready")
    expect(boundText("éé", 4)).toBe("éé")
    expect(boundText("✓✓", 6)).toBe("✓✓")
    expect(boundText("😀", 4)).toBe("😀")
  })

  it("cut a longer text at the byte limit without splitting a character", () => {
    expect(boundText("abcdef", 4)).toBe("abcd")
    expect(boundText("ééé", 5)).toBe("éé")
    expect(boundText("✓✓", 5)).toBe("✓")
    expect(boundText("a😀", 4)).toBe("a")
    const long = "é".repeat(MAX_TEXT_BYTES)
    const cut = boundText(long)
    expect(Buffer.byteLength(cut)).toBe(MAX_TEXT_BYTES)
    expect(cut).toBe("é".repeat(MAX_TEXT_BYTES / 2))
  })

  it("bound the text of a tool answer", () => {
    const answer = toolSuccess("x".repeat(MAX_TEXT_BYTES + 10), {})
    expect(answer.content[0]!.text.length).toBe(MAX_TEXT_BYTES)
  })
})
