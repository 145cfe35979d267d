import { Data, Effect } from "effect"
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
const RAW = ["diff", "--raw", "-z", "--no-abbrev", "--no-renames", "--no-color", "--no-ext-diff"]

/**
 * The most a state's changes may weigh (the new content of every changed file): building and applying
 * a binary patch takes several times its size in memory, so a result past it is not copied.
 */
export const MAX_STATE_CHANGE_BYTES = 256 * 1024 * 1024

/** A result whose changes weigh more than `MAX_STATE_CHANGE_BYTES`. */
export class StateTooLarge extends Data.TaggedError("StateTooLarge")<{ readonly bytes: number }> {}

/** The new object ids of a `git diff --raw -z` listing (deleted files and submodules have none worth counting). */
const newObjects = (raw: string) =>
  raw.split("\0").filter((field) => field.startsWith(":")).flatMap((header) => {
    const [, mode = "", , id = ""] = header.slice(1).split(" ")
    return mode.startsWith("160000") || /^0+$/.test(id) || id === "" ? [] : [id]
  })

/** The sizes of `ids` summed, from the objects of `args` (a git directory), without reading them. */
const weigh = (args: ReadonlyArray<string>, ids: ReadonlyArray<string>, cwd: string, env: Record<string, string>) =>
  Effect.gen(function*() {
    if (ids.length === 0) return 0
    const git = yield* Git
    const sizes = yield* git.run([...args, "cat-file", "--batch-check=%(objectsize)"], { cwd, env, stdin: `${ids.join("\n")}\n` })
    return sizes.split("\n").filter((line) => /^\d+$/.test(line)).reduce((total, line) => total + Number(line), 0)
  })

const withinCeiling = (bytes: number) => (bytes > MAX_STATE_CHANGE_BYTES ? Effect.fail(new StateTooLarge({ bytes })) : Effect.void)

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
      case "commits": {
        const raw = yield* git.run([...RAW, changes.from, changes.to], { cwd: changes.repository, env })
        yield* withinCeiling(yield* weigh([], newObjects(raw), changes.repository, env))
        yield* git.run([...DIFF, `--output=${file}`, changes.from, changes.to], { cwd: changes.repository, env })
        break
      }
      case "patch":
        yield* withinCeiling(Buffer.byteLength(changes.patch))
        yield* files.writeText(file, changes.patch, 0o600)
        break
      case "workspace": {
        // What the implementation left, read as collecting reads it: through the daemon's own git
        // directory and a private index, never the workspace's configuration.
        const source = changes.workspace
        const index = path.join(path.dirname(file), "changes.index")
        const base = ["--git-dir", source.gitDir, "--work-tree", source.directory]
        const options = { cwd: source.directory, env: { ...tagged(source.runTag), GIT_INDEX_FILE: index } }
        yield* git.sequence([[...base, "read-tree", source.base], [...base, "add", "--all", "."]], options)
        const raw = yield* git.run([...base, ...RAW, "--cached", source.base], options)
        yield* withinCeiling(yield* weigh(["--git-dir", source.gitDir], newObjects(raw), source.directory, options.env))
        yield* git.run([...base, ...DIFF, "--cached", `--output=${file}`, source.base], options)
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
