/**
 * File names in a patch's headers as git writes them and as a patch rebuilt from a transcript does:
 * git quotes a name with a byte it finds unusual (`"a/\303\251.txt"`, C escapes, octal UTF-8 bytes)
 * and ends a `---`/`+++` line whose name holds a space with a tab; the rebuilt patch writes names as
 * they are. `plainHeaderLine` writes every header the second way, so the two read alike.
 */

const ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, "\"": 34, "\\": 92 }

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** A C-quoted git name (`"a/\303\251.txt"`) as its text; any other text as it is. */
export const unquoteGitPath = (text: string): string => {
  if (text.length < 2 || !text.startsWith("\"") || !text.endsWith("\"")) return text
  const body = text.slice(1, -1)
  const bytes: Array<number> = []
  for (let index = 0; index < body.length; index++) {
    const character = body[index]!
    if (character !== "\\") {
      bytes.push(...encoder.encode(character))
      continue
    }
    const next = body[index + 1] ?? ""
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1))
    if (octal !== null) {
      bytes.push(Number.parseInt(octal[0], 8))
      index += 3
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0))
      index += 1
    }
  }
  return decoder.decode(new Uint8Array(bytes))
}

/** The two names of a `diff --git` line, quoted or not; `undefined` for any other line. */
export const fileHeaderPaths = (line: string): { readonly old: string; readonly new: string } | undefined => {
  if (!line.startsWith("diff --git ")) return undefined
  const rest = line.slice("diff --git ".length)
  if (rest.includes("\"")) {
    const names = [...rest.matchAll(/"(?:[^"\\]|\\.)*"|\S+/g)].map((match) => unquoteGitPath(match[0]))
    if (names.length !== 2) return undefined
    const [old, renamed] = names as [string, string]
    return old.startsWith("a/") && renamed.startsWith("b/") ? { old: old.slice(2), new: renamed.slice(2) } : undefined
  }
  const plain = /^a\/(.+?) b\/(.+)$/.exec(rest)
  return plain === null ? undefined : { old: plain[1]!, new: plain[2]! }
}

/** A `diff --git`, `---` or `+++` header with its names unquoted and without git's trailing tab; other lines as they are. */
export const plainHeaderLine = (line: string): string => {
  const paths = line.includes("\"") ? fileHeaderPaths(line) : undefined
  if (paths !== undefined) return `diff --git a/${paths.old} b/${paths.new}`
  const side = /^(---|\+\+\+) (.*?)\t?$/.exec(line)
  return side === null ? line : `${side[1]} ${unquoteGitPath(side[2]!)}`
}
