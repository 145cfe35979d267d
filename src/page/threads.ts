/**
 * The Thread step: the imported or packaged threads, searched, sorted and paged (`list_threads`), each
 * with its title; choosing one opens Configure of it.
 */
import { formatUsd } from "../domain/report/format.js"
import { callTool } from "./client.js"
import { host, messageOf } from "./configureHost.js"
import { inspect } from "./configure.js"
import { byId, h } from "./dom.js"
import { formatDate, formatTokenCount, totalTokens } from "./format.js"
import { rememberTitles } from "./titles.js"
import { DEFAULT_THREADS_PAGE, type ThreadList, type ThreadSummary } from "../domain/contracts/index.js"


const PROGRESS_MS = 400

/** Lists the threads from the first page, or the next page after those shown. */
export async function loadThreads(append: boolean) {
  const { app, draft } = host()
  const token = ++app.listToken
  const offset = append ? app.threads.length : 0
  const query = draft.query.trim()
  const args = { offset, limit: DEFAULT_THREADS_PAGE, source: draft.source === "sample" ? "sample" as const : "imported" as const, sort: draft.sort === "cost" ? "cost" as const : "date" as const, ...(query ? { query } : {}) }
  byId("thread-summary").textContent = "Loading threads…"
  // A first listing of a large history reads every session: say how far it is.
  const progress = setInterval(() => {
    callTool("list_threads_progress", {}).then((state) => {
      if (token === app.listToken && state.reading && state.message) byId("thread-summary").textContent = state.message
    }, () => {
      // progress is only a courtesy
    })
  }, PROGRESS_MS)
  try {
    const result = await callTool("list_threads", args)
    clearInterval(progress)
    if (token !== app.listToken) return
    app.listing = result
    app.threads = append ? app.threads.concat(result.threads) : [...result.threads]
    rememberTitles(result.threads.map((thread) => [thread.imported_thread_id, thread.title] as const))
    renderThreads()
  } catch (error) {
    clearInterval(progress)
    if (token !== app.listToken) return
    byId("thread-summary").textContent = `Could not list threads: ${messageOf(error)}`
  }
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`

/** A thread's facts under its title: folder, model, date, prompts, files, tokens, cost and branch. */
const metaOf = (thread: ThreadSummary) => [
  thread.project_dir,
  thread.claude_model,
  formatDate(thread.started_at),
  plural(thread.human_turns, "prompt"),
  `${plural(thread.changed_files, "file")} changed`,
  `${formatTokenCount(totalTokens(thread.tokens))} tokens`,
  thread.cost_usd === null ? "cost unknown" : formatUsd(thread.cost_usd),
  thread.git_branch ? `branch ${thread.git_branch}` : "no git branch"
].filter((part): part is string => typeof part === "string" && part !== "").join(" · ")

export function renderThreads() {
  const { app, draft } = host()
  const listing = app.listing
  byId("count-imported").textContent = listing === null ? "" : `(${listing.imported_total})`
  byId("count-sample").textContent = listing === null ? "" : `(${listing.sample_total})`
  const list = byId("thread-list")
  list.replaceChildren()
  const summary = byId("thread-summary")
  const total = listing?.total ?? 0
  const what = draft.source === "sample" ? "sample threads" : "imported threads"
  const query = draft.query.trim()
  if (app.threads.length === 0) {
    let message = query ? `No ${what} match “${query}”.` : `No ${what}.`
    if (draft.source === "imported" && !query && (listing?.sample_total ?? 0) > 0) message += " Try the packaged samples."
    summary.textContent = message
  } else {
    summary.textContent = `Showing ${app.threads.length} of ${total} ${what}${query ? ` matching “${query}”` : ""}.`
  }
  const problems = listing?.diagnostics ?? []
  if (problems.length) summary.textContent += ` Some history could not be read: ${problems.slice(0, 3).join(" ")}`
  const batchOn = host().batchOn()
  app.threads.forEach((thread, index) => {
    const id = thread.imported_thread_id
    const meta = metaOf(thread)
    const button = h(
      "button",
      { type: "button", className: "thread-item", "data-thread-id": id, "aria-current": id === draft.thread_id ? "true" : undefined, onClick: () => selectThread(id) },
      h("span", { className: "thread-num", text: `#${index + 1}` }),
      h("span", { className: "thread-text" }, h("span", { className: "thread-title", text: thread.title || id }), h("span", { className: "thread-meta", text: meta }))
    )
    list.append(h("li", {}, batchOn ? host().batchThreadPick(thread, index, meta) : button))
  })
  byId("load-more").hidden = !(listing?.has_more ?? false)
  renderHistoryNote(listing)
}

/** An empty or missing history folder is named, with a way to the packaged samples. */
export function renderHistoryNote(listing: ThreadList | null) {
  const { draft } = host()
  const note = byId("history-note")
  const empty = listing?.empty_history ?? null
  const show = empty !== null && empty !== "" && draft.source === "imported" && !draft.query.trim()
  note.hidden = !show
  note.replaceChildren()
  if (!show) return
  note.append(empty, " ", h("button", {
    type: "button",
    className: "link-button",
    id: "show-samples",
    text: "Try the packaged samples",
    onClick: () => {
      draft.source = "sample"
      const sample = byId("source-sample")
      if (sample instanceof HTMLInputElement) sample.checked = true
      host().saveDraft()
      void loadThreads(false)
    }
  }))
}

export function selectThread(id: string) {
  const { app, draft } = host()
  if (draft.thread_id !== id) {
    draft.thread_id = id
    draft.config = null
    app.prepared = null
  }
  host().saveDraft()
  renderThreads()
  host().showStep("configure", true)
  void inspect(id)
}
