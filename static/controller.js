"use strict"
;(() => {
  const HEARTBEAT_MS = 15000

  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body)
    })
    const payload = await response.json().catch(() => ({}))
    if (!response.ok || payload.isError) {
      const text = payload && payload.content && payload.content[0] ? payload.content[0].text : response.statusText
      throw new Error(text)
    }
    return payload
  }

  const callTool = (name, args) => post("/api/call", { name, arguments: args || {} })

  function text(id, value) {
    const element = document.getElementById(id)
    if (element) element.textContent = value
  }

  function renderRuns(runs) {
    const list = document.getElementById("recent-runs")
    list.replaceChildren()
    if (!runs.length) {
      const empty = document.createElement("li")
      empty.className = "muted"
      empty.textContent = "No runs yet."
      list.append(empty)
      return
    }
    for (const run of runs) {
      const item = document.createElement("li")
      const name = document.createElement("span")
      name.textContent = `${run.run_id} · ${run.model || ""}`
      const status = document.createElement("span")
      status.className = `status-${run.status}`
      status.textContent = `${run.status} (${run.phase})`
      item.append(name, status)
      list.append(item)
    }
  }

  async function refresh() {
    try {
      const result = await callTool("get_state")
      const state = result.structuredContent.state
      text("controller-status", `Ready · version ${state.plugin_version}`)
      text("controller-session", state.controller_session_id)
      text("controller-run-root", state.run_root)
      renderRuns(state.recent_runs || [])
    } catch (error) {
      text("controller-status", `Unavailable: ${error.message}`)
    }
  }

  const heartbeat = () => post("/api/heartbeat", {}).catch(() => undefined)

  refresh()
  heartbeat()
  setInterval(heartbeat, HEARTBEAT_MS)
  setInterval(refresh, HEARTBEAT_MS)
})()
