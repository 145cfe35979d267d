import * as fs from "node:fs"
import * as path from "node:path"
import { REPO_ROOT } from "./support.js"

/** A real transcript (test/fixtures/PROVENANCE.md) whose Claude only created files: ready as an empty-directory replay. */
const CREATED_ONLY = path.join(REPO_ROOT, "test/fixtures/claude-home/projects/-workspace/c45af7b1-cb7c-4e51-93db-8cbb250a877a.jsonl")
/** A real transcript whose Claude modified a file that existed before (CLAUDE.md): blocked without a repository. */
const MODIFIED_EXISTING = path.join(REPO_ROOT, "test/fixtures/claude-home/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")

export const batchThreadId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`
export const BLOCKED_THREAD = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"

/**
 * A history of `count` threads (the same real transcript under as many session ids, `batchThreadId(n)`),
 * and with `withBlocked` the transcript that cannot be replayed from an empty directory.
 */
export const batchHistory = (root: string, count: number, withBlocked = false) => {
  const directory = path.join(root, "claude", "projects", "-workspace")
  fs.mkdirSync(directory, { recursive: true })
  for (let n = 1; n <= count; n++) fs.copyFileSync(CREATED_ONLY, path.join(directory, `${batchThreadId(n)}.jsonl`))
  if (withBlocked) {
    const demo = path.join(root, "claude", "projects", "-path-to-Demo")
    fs.mkdirSync(demo, { recursive: true })
    fs.copyFileSync(MODIFIED_EXISTING, path.join(demo, `${BLOCKED_THREAD}.jsonl`))
  }
}
