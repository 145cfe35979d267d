import { defineConfig } from "vitest/config"

/** The optional tier that runs the real codex binary offline (`npm run test:codex-real`). */
export default defineConfig({
  test: {
    include: ["test/codex-real/**/*.real.ts"],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: ["default"]
  }
})
