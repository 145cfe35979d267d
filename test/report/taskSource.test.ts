import { describe, expect, it } from "vitest"
import { renderSourceMessage } from "../../src/domain/history/taskSource.js"
import { taskOverlap } from "../../src/domain/history/taskOverlap.js"
import { renderReportHtml } from "../../src/domain/report/html.js"
import { buildReport } from "../../src/domain/report/report.js"
import { HOSTILE, sampleInput } from "./fixtures.js"

const messages = [
  { kind: "prompt" as const, text: "add a hello world program", asked: null, uuid: "u1", timestamp: "2026-01-01T00:00:00.000Z" },
  { kind: "prompt" as const, text: `3 ${HOSTILE}`, asked: "Which one?\n1. Docs\n3. A simple program", uuid: "u2", timestamp: "2026-01-01T00:01:00.000Z" }
]

describe("the report keeps the task's source", () => {
  it("holds the prompt and the user's messages it came from in report.json and report.html, escaped", () => {
    const overlap = taskOverlap("Add a simple hello world program.", messages.map(renderSourceMessage))
    const report = buildReport({ ...sampleInput(), original_request: "Add a simple hello world program.", task_source: { messages, overlap } })
    expect(report.original_request).toBe("Add a simple hello world program.")
    expect(report.task_source).toEqual({ messages, overlap })
    const html = renderReportHtml(report)
    expect(html).toContain(`<h2 id="task-source-heading">Where the task came from</h2>`)
    expect(html).toContain("add a hello world program")
    expect(html).toContain("Which one?\n1. Docs\n3. A simple program")
    expect(html).toContain(`<p class="hint" id="task-overlap">The task prompt shares 100% of its words with your messages in the thread.</p>`)
    expect(html).not.toContain("<script>alert")
  })

  it("marks a prompt that shares too little with the messages, and leaves the section out of runs that kept none", () => {
    const overlap = taskOverlap("Implement a PostgreSQL migration tool.", messages.map((message) => message.text))
    const html = renderReportHtml(buildReport({ ...sampleInput(), task_source: { messages, overlap } }))
    expect(html).toMatch(/<p class="possible-leak" id="task-overlap">The task prompt shares 0% of its words with your messages in the thread \(below 50%\)/)
    const older = buildReport(sampleInput())
    expect(older.task_source).toBeNull()
    expect(renderReportHtml(older)).not.toContain("task-source-heading")
  })
})
