/**
 * Threads named by their titles wherever the page lists them (the Runs list, the recent runs, the batch
 * view), the id beside each. A title comes with what the controller already answered (a run's
 * `thread_title`, a batch grid's rows, the thread list); a thread seen without one is searched for once by
 * its id in `list_threads` (which searches ids), of the imported threads and then of the samples.
 */
import { shortThreadId } from "../domain/report/format.js"
import { callTool } from "./client.js"
import { h } from "./dom.js"

/** thread id → its title, or null when the history has no title for it. */
const known = new Map<string, string | null>()
const asked = new Set<string>()

/** Remembers the titles an answer carried (an empty or missing one is no title). */
export const rememberTitles = (entries: Iterable<readonly [string | null, string | null | undefined]>) => {
  for (const [id, title] of entries) if (id !== null && typeof title === "string" && title !== "") known.set(id, title)
}

/** A thread's title when the page knows it, else null. */
export const titleOf = (threadId: string): string | null => known.get(threadId) ?? null

const searchTitle = async (threadId: string): Promise<string | null> => {
  for (const source of ["imported", "sample"] as const) {
    const result = await callTool("list_threads", { source, query: threadId, limit: 5 })
    const thread = result.threads.find((entry) => entry.imported_thread_id === threadId)
    if (thread !== undefined) return thread.title
  }
  return null
}

/**
 * Looks up, once each, the titles of threads the page has none for; `arrived` runs when any title was
 * found (the caller renders again). A thread the history no longer has keeps its id alone.
 */
export const learnTitles = (threadIds: Iterable<string>, arrived: () => void) => {
  const wanted = [...new Set(threadIds)].filter((id) => !known.has(id) && !asked.has(id))
  if (wanted.length === 0) return
  for (const id of wanted) asked.add(id)
  void Promise.all(wanted.map((id) => searchTitle(id).catch(() => null))).then((titles) => {
    rememberTitles(wanted.map((id, index) => [id, titles[index]] as const))
    if (titles.some((title) => typeof title === "string" && title !== "")) arrived()
  })
}

/** A thread in a line: its title and its short id (the whole id on hover), or the whole id without a title. */
export const threadName = (threadId: string, title: string | null = titleOf(threadId)): HTMLElement =>
  title === null || title === ""
    ? h("code", { className: "thread-id", text: threadId })
    : h("span", { className: "thread-name" }, h("span", { className: "run-thread-title", text: title }), " ",
      h("code", { className: "muted thread-id", title: threadId, text: shortThreadId(threadId) }))

/** A thread in a table: its title, its id under it; the id alone without a title. */
export const threadCell = (threadId: string, title: string | null): HTMLTableCellElement =>
  title === null || title === ""
    ? h("td", { className: "mono", text: threadId })
    : h("td", { className: "run-thread" }, h("span", { className: "run-thread-title", text: title }), h("br"), h("code", { className: "muted", text: threadId }))
