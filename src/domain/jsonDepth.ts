/** How deep a request's JSON may nest: far beyond any tool's arguments, far below what would exhaust the stack. */
export const MAX_JSON_DEPTH = 64

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found in one pass over its characters (strings
 * skipped) before anything parses it: a parser or an error formatter that recurses would run out of stack first.
 */
export const nestsDeeperThan = (text: string | Uint8Array, limit = MAX_JSON_DEPTH): boolean => {
  // UTF-8 bytes of a non-ASCII character are all above 0x7f: the bytes are read as the characters would be.
  const codeAt = typeof text === "string" ? (index: number) => text.charCodeAt(index) : (index: number) => text[index]!
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const code = codeAt(index)
    if (inString) {
      if (code === 0x5c) index++ // a backslash escapes the next character
      else if (code === 0x22) inString = false
    } else if (code === 0x22) {
      inString = true
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true
    } else if (code === 0x5d || code === 0x7d) {
      depth--
    }
  }
  return false
}
