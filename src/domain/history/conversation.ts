import { findLast, timestampMillis } from "./json.js"
import { classifyUserLine } from "./classify.js"
import { isMainChain, parentOf, type SessionEntry, typeOf, uuidOf } from "./entries.js"

export interface Conversation {
  /** Main-chain lines in file order (any type that carries a uuid, plus uuid-less bookkeeping lines). */
  readonly mainChain: ReadonlyArray<SessionEntry>
  /** uuids of main-chain lines on abandoned (rewound) branches. */
  readonly abandoned: ReadonlySet<string>
  /** The last main-chain user/assistant line: the conversation's leaf. */
  readonly leaf: SessionEntry | undefined
}

const isConversational = (entry: SessionEntry) => {
  const type = typeOf(entry)
  return type === "user" || type === "assistant"
}

/** A prompt the human typed (not a tool result, meta expansion or compaction summary). */
const isTypedPrompt = (entry: SessionEntry) => {
  if (typeOf(entry) !== "user") return false
  const kind = classifyUserLine(entry)._tag
  return kind === "Prompt" || kind === "SlashCommand" || kind === "Interrupt"
}

const pathToRoot = (leaf: SessionEntry, byUuid: ReadonlyMap<string, SessionEntry>) => {
  const path = new Map<string, string | undefined>()
  let current: SessionEntry | undefined = leaf
  let child: string | undefined
  while (current !== undefined) {
    const uuid = uuidOf(current)
    if (uuid === undefined || path.has(uuid)) break
    path.set(uuid, child)
    child = uuid
    const parent = parentOf(current)
    current = parent === undefined ? undefined : byUuid.get(parent)
  }
  return path
}

const markSubtree = (root: string, children: ReadonlyMap<string, ReadonlyArray<SessionEntry>>, into: Set<string>) => {
  const stack = [root]
  while (stack.length > 0) {
    const uuid = stack.pop()!
    if (into.has(uuid)) continue
    into.add(uuid)
    for (const child of children.get(uuid) ?? []) {
      const childUuid = uuidOf(child)
      if (childUuid !== undefined) stack.push(childUuid)
    }
  }
}

/**
 * Finds rewinds: along the path from the leaf to the root, a typed prompt that is a sibling of the
 * path's own child (and was written at a different time) starts an abandoned branch. Other siblings
 * (parallel tool results, progress, hooks) are recording artefacts and stay live.
 */
export const buildConversation = (entries: ReadonlyArray<SessionEntry>): Conversation => {
  const mainChain = entries.filter(isMainChain)
  const byUuid = new Map<string, SessionEntry>()
  const children = new Map<string, Array<SessionEntry>>()
  for (const entry of mainChain) {
    const uuid = uuidOf(entry)
    if (uuid !== undefined && !byUuid.has(uuid)) byUuid.set(uuid, entry)
    const parent = parentOf(entry)
    if (parent !== undefined && uuid !== undefined) {
      const list = children.get(parent)
      if (list === undefined) children.set(parent, [entry])
      else list.push(entry)
    }
  }
  const leaf = findLast(mainChain, isConversational)
  const abandoned = new Set<string>()
  if (leaf === undefined) return { mainChain, abandoned, leaf }
  const path = pathToRoot(leaf, byUuid)
  for (const [node, pathChild] of path) {
    const siblings = children.get(node) ?? []
    if (siblings.length < 2 || pathChild === undefined) continue
    const pathChildTime = timestampMillis(byUuid.get(pathChild)?.raw)
    for (const sibling of siblings) {
      const uuid = uuidOf(sibling)
      if (uuid === undefined || uuid === pathChild || path.has(uuid) || !isTypedPrompt(sibling)) continue
      if (timestampMillis(sibling.raw) === pathChildTime) continue
      markSubtree(uuid, children, abandoned)
    }
  }
  return { mainChain, abandoned, leaf }
}

export const isAbandoned = (conversation: Conversation, entry: SessionEntry) => {
  const uuid = uuidOf(entry)
  return uuid !== undefined && conversation.abandoned.has(uuid)
}
