/**
 * Reads the filesystem table of the `codex_replay` permission profile out of a Codex command line, and
 * tells whether a folder is readable under it. The profile is an allow-list (`":minimal"` plus grants),
 * so a folder is unreadable when no grant covers it or a `"none"` entry does.
 */
export const filesystemGrants = (argv: ReadonlyArray<string>): Array<readonly [string, string]> => {
  const table = argv.find((value) => value.startsWith("permissions.codex_replay.filesystem="))
  if (table === undefined) throw new Error("The command line has no codex_replay filesystem profile.")
  return [...table.matchAll(/"([^"]+)" = "(read|write|none)"/g)].map((match) => [match[1]!, match[2]!] as const)
}

const covers = (folder: string, path: string) => path === folder || path.startsWith(`${folder}/`)

/** Whether `path` is readable under the profile of `argv`: a grant covers it and no denial does. */
export const readableUnder = (argv: ReadonlyArray<string>, path: string): boolean => {
  const grants = filesystemGrants(argv)
  if (!grants.some(([folder]) => folder === ":minimal")) throw new Error("The profile is not an allow-list.")
  const denied = grants.some(([folder, access]) => access === "none" && covers(folder, path))
  return !denied && grants.some(([folder, access]) => access !== "none" && folder !== ":minimal" && covers(folder, path))
}
