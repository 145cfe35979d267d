import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { request } from "../../support/daemon.js"
import { killAllDaemons, startDaemon } from "../../runs/support.js"

afterAll(async () => expect(await killAllDaemons()).toBe(0))

const RUN = "run-20260101T000000Z-0123456789"
const BATCH = "batch-20260101T000000Z-0123456789"
const THREAD = "00000000-0000-4000-8000-000000000001"

/** The page's addresses, each with the query a shared link may carry. */
const ADDRESSES = [
  `/threads/${THREAD}`,
  `/threads/${THREAD}?range_start=a&range_end=b`,
  `/runs/${RUN}`,
  `/batches/${BATCH}`,
  "/runs",
  "/runs?query=spotter&status=completed&winner=codex"
]

describe("the page's addresses over real HTTP", () => {
  it("serve the page behind the cookie, trade ?token= for the cookie and send the browser to the same address without it", async () => {
    const daemon = await startDaemon()
    try {
      const token = daemon.apiToken()
      const cookie = `codex_replay_${daemon.port}=${token}`
      for (const address of ADDRESSES) {
        const page = await request(daemon.port, address, { headers: { Cookie: cookie }, token: null })
        expect(page.status, address).toBe(200)
        expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
        expect(page.text).toContain(`<script src="/controller.js" defer></script>`)
        // Without the cookie: how to get in, never the app.
        const gate = await request(daemon.port, address, { token: null })
        expect(gate.status, address).toBe(401)
        expect(gate.text).toContain("codex-replay open")
        expect(gate.text).not.toContain("controller.js")

        const joiner = address.includes("?") ? "&" : "?"
        const opened = await request(daemon.port, `${address}${joiner}token=${token}`, { token: null })
        expect(opened.status, address).toBe(303)
        expect(opened.headers.location).toBe(address)
        expect(opened.headers["set-cookie"]).toEqual([`${cookie}; Path=/; HttpOnly; SameSite=Strict`])
        const wrong = await request(daemon.port, `${address}${joiner}token=${"0".repeat(64)}`, { token: null })
        expect(wrong.status, address).toBe(401)
        expect(wrong.headers["set-cookie"]).toBeUndefined()
      }
      // The token in the middle of a query: the rest of the query stays, in its order.
      const middle = await request(daemon.port, `/runs?query=a%20b&token=${token}&status=failed`, { token: null })
      expect(middle.headers.location).toBe("/runs?query=a+b&status=failed")
      // `/` keeps sending the browser to `/`.
      expect((await request(daemon.port, `/?token=${token}`, { token: null })).headers.location).toBe("/")
    } finally {
      await daemon.stop()
    }
  })

  it("show a saved portfolio's own page at /portfolios/<id>, behind the same cookie, with its own strict policy", async () => {
    const daemon = await startDaemon()
    try {
      const token = daemon.apiToken()
      const cookie = `codex_replay_${daemon.port}=${token}`
      const id = "portfolio-20260101T000000Z-0123456789"
      const directory = path.join(daemon.runRoot, "portfolios", id)
      fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
      fs.writeFileSync(path.join(directory, "portfolio.html"), "<!doctype html><title>Portfolio verdict</title><h1>Portfolio verdict</h1>", { mode: 0o600 })
      const address = `/portfolios/${id}`
      const shown = await request(daemon.port, address, { headers: { Cookie: cookie }, token: null })
      expect(shown.status).toBe(200)
      expect(shown.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(shown.headers["content-disposition"]).toBeUndefined()
      expect(shown.headers["content-security-policy"]).toContain("default-src 'none'")
      expect(shown.headers["content-security-policy"]).not.toContain("script-src")
      expect(shown.text).toContain("<h1>Portfolio verdict</h1>")
      // Without the cookie: how to get in, never the portfolio.
      const gate = await request(daemon.port, address, { token: null })
      expect(gate.status).toBe(401)
      expect(gate.text).not.toContain("Portfolio verdict</h1>")
      const opened = await request(daemon.port, `${address}?token=${token}`, { token: null })
      expect(opened.status).toBe(303)
      expect(opened.headers.location).toBe(address)
      // An unknown portfolio, a malformed id and a traversal answer 404 and show nothing.
      const unknown = await request(daemon.port, "/portfolios/portfolio-20260101T000000Z-aaaaaaaaaa", { headers: { Cookie: cookie }, token: null })
      expect(unknown.status).toBe(404)
      for (const bad of ["/portfolios/..%2F..%2Fetc", "/portfolios/portfolio-1", `/portfolios/${id}/x`]) {
        const refused = await request(daemon.port, bad, { headers: { Cookie: cookie }, token: null })
        expect(refused.status, bad).toBe(404)
        expect(refused.text, bad).not.toContain("Portfolio verdict</h1>")
      }
    } finally {
      await daemon.stop()
    }
  })

  it("leave assets, the API, unknown paths, path traversal and the Host rule as they were", async () => {
    const daemon = await startDaemon()
    try {
      const token = daemon.apiToken()
      const cookie = { Cookie: `codex_replay_${daemon.port}=${token}` }
      expect((await request(daemon.port, "/controller.css", { token: null })).status).toBe(200)
      for (const pathname of [
        "/runs/",
        "/runs/../package.json",
        "/runs/..",
        "/runs/%2e%2e",
        "/runs/a%2Fb",
        `/runs/${RUN}/report.html`,
        "/batches/not-a-batch",
        "/threads/.hidden",
        "/thread/abc",
        "//runs/abc",
        "/runs//abc"
      ]) {
        const answer = await request(daemon.port, pathname, { headers: cookie, token: null })
        expect(answer.status, pathname).toBe(404)
        const withToken = await request(daemon.port, `${pathname}?token=${token}`, { token: null })
        expect(withToken.status, pathname).toBe(404)
        expect(withToken.headers["set-cookie"]).toBeUndefined()
      }
      // The API is not the page: a GET under /api without the token is refused, a POST to an address is not a page.
      expect((await request(daemon.port, `/api/runs/${RUN}`, { headers: cookie, token: null })).status).toBe(404)
      expect((await request(daemon.port, `/runs/${RUN}`, { method: "POST", headers: cookie, token: null, body: "{}" })).status).not.toBe(200)
      // Host rule unchanged: another Host is refused before any address is looked at.
      const foreign = await request(daemon.port, `/runs/${RUN}?token=${token}`, { host: `localhost:${daemon.port}`, token: null })
      expect(foreign.status).toBe(421)
      expect(foreign.headers["set-cookie"]).toBeUndefined()
    } finally {
      await daemon.stop()
    }
  })
})
