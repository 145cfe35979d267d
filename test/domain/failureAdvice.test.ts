import { describe, expect, it } from "vitest"
import { failureAdvice } from "../../src/domain/failureAdvice.js"

describe("what to do about a failed run", () => {
  it("says to wait and replay again for a rate limit or an overloaded service", () => {
    expect(failureAdvice({ worker_code: "rate_limited", controller_code: "none" }, "429")).toBe(
      "The model service was busy or limited the rate of requests: wait a few minutes, then replay it again."
    )
    expect(failureAdvice({ worker_code: "server_error" }, null)).toBe(failureAdvice({ worker_code: "rate_limited" }, null))
  })

  it("says to check the plan for a usage limit and to log in for a refused key", () => {
    expect(failureAdvice({ worker_code: "usage_limit" }, null)).toMatch(/^Your plan's usage limit or API quota is used up: check the plan/)
    expect(failureAdvice({ worker_code: "unauthorized" }, null)).toMatch(/run `codex login`/)
  })

  it("reads the controller's code when the worker has none, and an older run's error text when neither is known", () => {
    expect(failureAdvice({ worker_code: "unknown", controller_code: "coordinator_stopped" }, null)).toBe("The controller stopped while the run was in progress: replay it again.")
    expect(failureAdvice(null, "Codex stopped: Not logged in.")).toMatch(/run `codex login`/)
    expect(failureAdvice(undefined, "Interrupted.")).toBeNull()
  })
})
