import { describe, expect, it } from "vitest"
import { settingsMismatch, settingsShared } from "../../src/services/ControllerClient.js"
import { controllerSettingsOf } from "../../src/services/ControllerRuntime.js"

const base = { claudeConfigDir: "/h/.claude", runRoot: "/h/runs", codexCliPath: undefined }
const PRICES = { "gpt-x": { input_per_million: 1, cached_input_per_million: 0.1, output_per_million: 4 } }

describe("which running controller may serve the command line's settings", () => {
  it("the reviewer setting and the prices are settings: another value, or another price in the same file, is another controller", () => {
    const unset = controllerSettingsOf(base)
    expect(settingsMismatch(unset, unset)).toBeUndefined()
    const reviewer = controllerSettingsOf({ ...base, reviewerModel: "gpt-x" })
    expect(settingsMismatch(unset, reviewer)).toBe("its reviewer setting differs (CODEX_REPLAY_REVIEWER_MODEL unset there, = gpt-x here)")
    expect(settingsMismatch(reviewer, unset)).toBe("its reviewer setting differs (CODEX_REPLAY_REVIEWER_MODEL = gpt-x there, unset here)")
    const priced = controllerSettingsOf({ ...base, codexPricingFile: "/h/prices.json", codexPriceOverrides: PRICES })
    expect(settingsMismatch(unset, priced)).toBe("its Codex prices differ (CODEX_REPLAY_PRICING unset there, = /h/prices.json here)")
    const edited = controllerSettingsOf({ ...base, codexPricingFile: "/h/prices.json", codexPriceOverrides: { "gpt-x": { ...PRICES["gpt-x"], output_per_million: 5 } } })
    expect(settingsMismatch(priced, edited)).toBe(
      "its Codex prices differ (CODEX_REPLAY_PRICING = /h/prices.json there, = /h/prices.json here, the file changed since it started)"
    )
    expect(settingsMismatch(priced, controllerSettingsOf({ ...base, codexPricingFile: "/h/prices.json", codexPriceOverrides: PRICES }))).toBeUndefined()
  })

  it("a runtime file without them (an older controller) reads as both unset; the nearest controller is the one named", () => {
    const older = { claude_config_dir: "/h/.claude", run_root: "/h/runs", codex_cli_path: null }
    expect(settingsMismatch(older, controllerSettingsOf(base))).toBeUndefined()
    const wanted = controllerSettingsOf({ ...base, reviewerModel: "gpt-x" })
    expect(settingsShared(older, wanted)).toBe(3)
    expect(settingsShared({ ...older, run_root: "/elsewhere" }, wanted)).toBe(1)
    expect(settingsShared(undefined, wanted)).toBe(-1)
    expect(settingsShared(wanted, wanted)).toBe(6)
    // The same pricing file with other prices is nearer than no pricing file: it shares one setting more.
    const priced = { ...wanted, pricing_file: "/prices.json", pricing_sha256: "a" }
    expect(settingsShared({ ...priced, pricing_sha256: "b" }, priced)).toBeGreaterThan(settingsShared({ ...priced, pricing_file: null, pricing_sha256: null }, priced))
  })
})
