import { Either } from "effect"
import { describe, expect, it } from "vitest"
import type { ModelOption } from "../../src/domain/history/models.js"
import { neutralReviewer, reviewerFor, selfReviewModels } from "../../src/domain/reviewer.js"

const OFFERED: ReadonlyArray<ModelOption> = [
  { id: "gpt-a", label: "A" },
  { id: "gpt-b", label: "B", default: true },
  { id: "gpt-c", label: "C" }
]

const chosen = (requested: string | null, controller: string | undefined, implementers: ReadonlyArray<string>, options = OFFERED) =>
  Either.getOrElse(Either.map(reviewerFor(requested, controller, options, implementers), (model) => model as string | null), () => null)

describe("reviewerFor", () => {
  it("without a reviewer named, Codex's default model when it implements none of the runs", () => {
    expect(chosen(null, undefined, ["gpt-a"])).toBe("gpt-b")
    expect(chosen(null, undefined, [])).toBe("gpt-b")
  })

  it("when the default model implements a run, the first offered model in Codex's order that implements none", () => {
    expect(chosen(null, undefined, ["gpt-b"])).toBe("gpt-a")
    expect(chosen(null, undefined, ["gpt-b", "gpt-a"])).toBe("gpt-c")
    // A batch: none of the batch's models, whichever of its runs each model implements.
    expect(chosen(null, undefined, ["gpt-a", "gpt-b"])).toBe("gpt-c")
  })

  it("only when every offered model is an implementer, a self-review by Codex's default model", () => {
    const reviewer = chosen(null, undefined, ["gpt-a", "gpt-b", "gpt-c"])
    expect(reviewer).toBe("gpt-b")
    expect(selfReviewModels("gpt-b", ["gpt-a", "gpt-b", "gpt-c"])).toEqual(["gpt-b"])
    // One model offered, one implementer: a self-review.
    expect(chosen(null, undefined, ["gpt-x"], [{ id: "gpt-x", label: "X" }])).toBe("gpt-x")
  })

  it("without a default marked, the first model listed is Codex's default", () => {
    const options = OFFERED.map(({ id, label }) => ({ id, label }))
    expect(neutralReviewer(options, [])).toBe("gpt-a")
    expect(neutralReviewer(options, ["gpt-a"])).toBe("gpt-b")
    expect(neutralReviewer([], [])).toBeUndefined()
  })

  it("a reviewer named by the configuration, then the controller's, wins over the neutral rule, self-review or not", () => {
    expect(chosen("gpt-a", "gpt-c", ["gpt-a"])).toBe("gpt-a")
    expect(chosen(null, "gpt-c", ["gpt-c"])).toBe("gpt-c")
    expect(selfReviewModels("gpt-c", ["gpt-c", "gpt-a"])).toEqual(["gpt-c"])
  })

  it("a reviewer Codex does not offer, or no model at all, is refused in one sentence naming the setting", () => {
    const unknown = reviewerFor("gpt-z", undefined, OFFERED, [])
    expect(Either.isLeft(unknown) && unknown.left.message).toBe("Unknown reviewer model (reviewer_model): gpt-z. Choose one of: gpt-a, gpt-b, gpt-c.")
    const controller = reviewerFor(null, "gpt-z", OFFERED, [])
    expect(Either.isLeft(controller) && controller.left.message).toBe(
      "CODEX_REPLAY_REVIEWER_MODEL names gpt-z, which Codex does not offer; choose one of: gpt-a, gpt-b, gpt-c."
    )
    const none = reviewerFor(null, undefined, [], ["gpt-a"])
    expect(Either.isLeft(none) && none.left.message).toBe("Codex offers no model to review with; set reviewer_model.")
  })
})
