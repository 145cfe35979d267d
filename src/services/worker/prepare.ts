import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Either, Option } from "effect"
import * as path from "node:path"
import { coversHome, toolchainDirectories } from "../../domain/agentSandbox.js"
import { invalidRequest, isReadOnlyPurpose, type JsonSchemaObject, outputJsonSchema, WorkerPurpose } from "../../domain/worker.js"
import { homeDirectoryOf, systemHomeDirectory } from "../platform/environment.js"
import { LinkSafeFiles } from "../platform/LinkSafeFiles.js"
import { locateCodex } from "../platform/codexCli.js"
import type { WorkerRequest } from "./request.js"

/** Validation before any process starts: the request, the CLI, and what the sandbox hides and grants. */

export type AnyRequest = WorkerRequest<unknown, unknown>

export interface PreparedRequest {
  readonly request: AnyRequest
  readonly cliPath: string
  readonly jsonSchema: JsonSchemaObject | undefined
  readonly skipGitRepoCheck: boolean
  readonly hiddenRoots: ReadonlyArray<string>
  /** What the agent may read besides its working directory (the Codex install, toolchains). */
  readonly readable: ReadonlyArray<string>
}

const realOr = (target: string, fallback: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.realPath(target).pipe(Effect.orElseSucceed(() => fallback)))

const realOption = (target: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => Effect.option(fs.realPath(target)))

const MAX_GIT_FILE_BYTES = 64 * 1024

const statOption = (target: string) => Effect.flatMap(FileSystem.FileSystem, (fs) => Effect.option(fs.stat(target)))

/** Whether the working directory is a directory; one that cannot even be looked at is not. */
const isDirectory = (directory: string) =>
  Effect.map(statOption(directory), Option.exists((info) => info.type === "Directory"))

/** A real repository or worktree: `.git/HEAD`, or a `.git` file pointing to the git directory. */
const isGitMarker = (candidate: string) =>
  Effect.gen(function*() {
    const links = yield* LinkSafeFiles
    const info = yield* statOption(candidate)
    if (Option.isNone(info)) return false
    if (info.value.type === "Directory") return Option.isSome(yield* statOption(path.join(candidate, "HEAD")))
    // A `.git` file holds one `gitdir:` line; one larger than this, a link or anything unreadable is no marker.
    const text = yield* Effect.orElseSucceed(links.readRegular(candidate, MAX_GIT_FILE_BYTES), () => Option.none<string>())
    return Option.exists(text, (content) => content.startsWith("gitdir:"))
  })

/** Codex refuses to run outside a repository unless told to skip that check. */
const insideGitRepository = (directory: string) =>
  Effect.gen(function*() {
    for (let current = directory; ; current = path.dirname(current)) {
      if (yield* isGitMarker(path.join(current, ".git"))) return true
      if (path.dirname(current) === current) return false
    }
  })

const isInside = (child: string, parent: string) => {
  const relative = path.relative(parent, child)
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))
}

/**
 * The existing hidden roots, resolved. A root that holds the Codex executable itself (Codex's
 * standalone install lives in its home) is hidden entry by entry, except the way to the executable:
 * inside the sandbox Codex runs its own executable again.
 */
export const resolveHiddenRoots = (roots: ReadonlyArray<string>, executable: string, workingDirectory: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const realExecutable = yield* realOr(executable, executable)
    const hidden: Array<string> = []
    for (const root of roots) {
      const real = Option.getOrUndefined(yield* realOption(root))
      if (real === undefined || real === workingDirectory) continue
      if (!isInside(realExecutable, real)) {
        hidden.push(real)
        continue
      }
      const keep = realExecutable.slice(real.length + 1).split(path.sep)[0]
      const entries = yield* fs.readDirectory(real).pipe(Effect.orElseSucceed((): Array<string> => []))
      hidden.push(...entries.filter((entry) => entry !== keep).map((entry) => path.join(real, entry)))
    }
    return [...new Set(hidden)]
  })

const existingRealPaths = (paths: ReadonlyArray<string>) =>
  Effect.map(Effect.forEach(paths, realOption, { concurrency: "unbounded" }), (real) => [...new Set(real.flatMap(Option.toArray))])

/** The home folder as the sandbox sees it (its real path). */
const realHome = () => realOr(systemHomeDirectory(), systemHomeDirectory())

/**
 * What the Codex executable needs to run again inside its sandbox: the `@openai` folder of the
 * `node_modules` it is installed in (the launcher and its platform package), else its own folder.
 */
export const codexInstallation = (executable: string) =>
  Effect.gen(function*() {
    const real = yield* realOr(executable, executable)
    const marker = `${path.sep}node_modules${path.sep}@openai${path.sep}`
    const index = real.indexOf(marker)
    const folder = index === -1 ? path.dirname(real) : real.slice(0, index + marker.length - 1)
    // A Codex kept directly in the home (or in a folder holding it) is granted alone, not its folder.
    return coversHome(folder, yield* realHome()) ? real : folder
  })

/** What an implementation reads besides its workspace: toolchains on PATH, and DNS where /etc links out. */
export const implementationReadable = (environment: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function*() {
    const paths = yield* existingRealPaths([...toolchainDirectories(environment, homeDirectoryOf(environment)), "/etc/resolv.conf"])
    // Checked again after links are resolved: a PATH entry linking to the home grants nothing.
    const home = yield* realOr(homeDirectoryOf(environment), homeDirectoryOf(environment))
    return paths.filter((entry) => !["/etc", "/usr"].some((system) => isInside(entry, system)) && !coversHome(entry, home))
  })

export const prepareRequest = (
  request: AnyRequest,
  cliPath: string | undefined,
  environment: Readonly<Record<string, string | undefined>>,
  hiddenRoots: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    if (!WorkerPurpose.literals.includes(request.purpose)) {
      return yield* invalidRequest(`The worker purpose "${String(request.purpose)}" is unknown.`)
    }
    if (typeof request.model !== "string" || request.model.trim() === "") {
      return yield* invalidRequest("The worker request has no model.")
    }
    if (typeof request.prompt !== "string" || request.prompt.trim() === "") {
      return yield* invalidRequest("The worker request has no prompt.")
    }
    const directory = request.workingDirectory
    if (typeof directory !== "string" || !path.isAbsolute(directory) || !(yield* isDirectory(directory))) {
      return yield* invalidRequest(`The working directory ${String(directory)} is not an existing absolute directory.`)
    }
    const jsonSchema = request.outputSchema === undefined ? undefined : outputJsonSchema(request.outputSchema)
    if (jsonSchema !== undefined && Either.isLeft(jsonSchema)) return yield* invalidRequest(jsonSchema.left)
    const located = yield* locateCodex(cliPath, environment)
    if (!located.found) return yield* invalidRequest(located.message, "cli_unavailable")
    const executable = located.path
    const realDirectory = yield* realOr(directory, directory)
    return {
      request: { ...request, workingDirectory: realDirectory },
      cliPath: executable,
      jsonSchema: jsonSchema === undefined ? undefined : jsonSchema.right,
      skipGitRepoCheck: !(yield* insideGitRepository(directory)),
      hiddenRoots: yield* resolveHiddenRoots([...hiddenRoots, ...(request.hiddenRoots ?? [])], executable, realDirectory),
      readable: [
        yield* codexInstallation(executable),
        ...(isReadOnlyPurpose(request.purpose) ? [] : yield* implementationReadable(environment))
      ]
    } satisfies PreparedRequest
  })
