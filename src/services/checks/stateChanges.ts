import { Effect } from "effect"
import * as path from "node:path"
import { RUN_TAG_VARIABLE } from "../../domain/product.js"
import { FileStore } from "../FileStore.js"
import { Git } from "../Git.js"
import type { MaterialisedWorkspace } from "../Workspace.js"

/**
 * What turns a fresh copy of the start into a state: nothing (the start itself), the commits Claude's
 * thread went between, Claude's patch rebuilt from its transcript, or what an implementation workspace
 * holds now. Every result is applied the same way — one binary patch onto a fresh copy of the start —
 * so every side is checked as the same kind of copy.
 */
export type StateChanges =
  | { readonly kind: "start" }
  | { readonly kind: "commits"; readonly repository: string; readonly from: string; readonly to: string }
  | { readonly kind: "patch"; readonly patch: string }
  | { readonly kind: "workspace"; readonly workspace: MaterialisedWorkspace }
  | { readonly kind: "unavailable"; readonly reason: string }

const DIFF = ["diff", "--binary", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames"]

const tagged = (runTag: string | undefined): Record<string, string> => (runTag === undefined ? {} : { [RUN_TAG_VARIABLE]: runTag })

/** Writes the state's changes as a binary patch at `file` and applies it to `copy`; the start needs none. */
export const writeChanges = (changes: StateChanges, copy: MaterialisedWorkspace, file: string) =>
  Effect.gen(function*() {
    const git = yield* Git
    const files = yield* FileStore
    const env = tagged(copy.runTag)
    switch (changes.kind) {
      case "start":
      case "unavailable":
        return
      case "commits":
        yield* git.run([...DIFF, `--output=${file}`, changes.from, changes.to], { cwd: changes.repository, env })
        break
      case "patch":
        yield* files.writeText(file, changes.patch, 0o600)
        break
      case "workspace": {
        // What the implementation left, read as collecting reads it: through the daemon's own git
        // directory and a private index, never the workspace's configuration.
        const source = changes.workspace
        const index = path.join(path.dirname(file), "changes.index")
        const base = ["--git-dir", source.gitDir, "--work-tree", source.directory]
        yield* git.sequence(
          [[...base, "read-tree", source.base], [...base, "add", "--all", "."], [...base, ...DIFF, "--cached", `--output=${file}`, source.base]],
          { cwd: source.directory, env: { ...tagged(source.runTag), GIT_INDEX_FILE: index } }
        )
        break
      }
    }
    // An empty patch changes nothing (and git refuses to apply one).
    const size = yield* files.ownSize(file)
    if (size._tag === "None" || size.value === 0) return
    // Applied through the copy's own snapshot directory, so a non-git copy is patched in place too.
    yield* git.run(
      ["--git-dir", copy.gitDir, "--work-tree", copy.directory, "apply", "--binary", "--whitespace=nowarn", file],
      { cwd: copy.directory, env }
    )
  })
