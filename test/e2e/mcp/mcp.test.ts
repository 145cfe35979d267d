import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { BIN, freePort, isAlive, listTree, registerRuntime, REPO_ROOT, request, scratch, sessionId } from "../../support/daemon.js"
import { spawnBin } from "../../support/spawnBin.js"

interface Launch {
  readonly root: string
  readonly client: Client
  readonly transport: StdioClientTransport
  readonly stderr: () => string
}

const launches: Launch[] = []

/** Starts `codex-replay` (MCP on stdio) through the official SDK client. */
const connect = async (env: Record<string, string> = {}, root = scratch()): Promise<Launch> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    cwd: REPO_ROOT,
    env: {
      ...(process.env as Record<string, string>),
      CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"),
      CODEX_REPLAY_CONTROLLER_PORT: String(await freePort()),
      CODEX_REPLAY_CONTROLLER_IDLE_TIMEOUT_SECONDS: "60",
      ...env
    },
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
  const client = new Client({ name: "codex-replay-test", version: "1.0.0" })
  await client.connect(transport)
  const launch = { root, client, transport, stderr: () => stderr }
  launches.push(launch)
  return launch
}

/** Stops every daemon a launch started, through its runtime file and control token. */
const stopControllers = async (root: string) => {
  const controllers = path.join(root, "controllers")
  if (!fs.existsSync(controllers)) return
  for (const session of fs.readdirSync(controllers)) {
    const runtimePath = path.join(controllers, session, "controller-server.json")
    if (!fs.existsSync(runtimePath)) continue
    const runtime = JSON.parse(fs.readFileSync(runtimePath, "utf8"))
    await request(runtime.port, "/api/shutdown", { method: "POST", headers: { "X-Codex-Replay-Control": runtime.control_token }, body: "{}", token: runtime.api_token }).catch(() => undefined)
    for (let i = 0; i < 100 && isAlive(runtime.pid); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    if (isAlive(runtime.pid)) process.kill(runtime.pid, "SIGKILL")
  }
}

afterEach(async () => {
  for (const launch of launches.splice(0)) {
    await launch.client.close()
    await stopControllers(launch.root)
  }
})

const textOf = (result: any) => result.content[0].text as string

describe("MCP server through the official SDK client", () => {
  it("negotiates the protocol, lists exactly open_controller and refuses other tools", async () => {
    const { client } = await connect()
    expect(client.getServerVersion()).toMatchObject({ name: "codex-replay" })
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} })
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(["open_controller"])
    expect(tools[0]!.inputSchema).toEqual({
      type: "object",
      properties: {
        controller_session_id: { type: "string", pattern: "^[a-f0-9]{32}$", description: expect.stringContaining("32 lowercase hexadecimal") },
        codex_cli_path: { type: "string", description: expect.stringContaining("CODEX_CLI_PATH") }
      },
      required: ["controller_session_id"],
      additionalProperties: false
    })
    // A model calling it learns what each parameter is and where the Codex path otherwise comes from.
    expect(tools[0]!.description).toContain("once per controller session id")
    expect(tools[0]!.inputSchema.properties!.controller_session_id).toMatchObject({ description: expect.stringContaining("used only once") })
    expect(tools[0]!.inputSchema.properties!.codex_cli_path).toMatchObject({ description: expect.stringContaining("`codex` on PATH") })
    const other = await client.callTool({ name: "start_run", arguments: {} })
    expect(other.isError).toBe(true)
    expect(textOf(other)).toBe("Only open_controller is exposed through MCP.")
    expect(await client.ping()).toEqual({})
  })

  it("launches a detached controller once, proves it, and answers a retry with the same result", async () => {
    const launch = await connect()
    const session = sessionId()
    const result: any = await launch.client.callTool({ name: "open_controller", arguments: { controller_session_id: session } })
    expect(result.isError).toBeFalsy()
    const url: string = result.structuredContent.launch_url
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/)
    expect(textOf(result)).toBe(`Codex Replay is ready. [Open Codex Replay](${url})`)
    expect(result.structuredContent).toEqual({ prepared: true, opened: false, launch_url: url, controller_session_id: session })
    const port = Number(new URL(url).port)
    const token = new URL(url).searchParams.get("token")
    const instance = path.join(launch.root, "controllers", session)
    expect(token).toBe(JSON.parse(fs.readFileSync(path.join(instance, "controller-server.json"), "utf8")).api_token)
    const health = await request(port, "/health", { token })
    expect(health.json.controller_session_id).toBe(session)

    const attempt = JSON.parse(fs.readFileSync(path.join(instance, "attempt.json"), "utf8"))
    expect(attempt).toMatchObject({ controller_session_id: session, controller_ready: true, controller_pid: health.json.pid })
    expect(fs.statSync(path.join(instance, "attempt.json")).mode & 0o777).toBe(0o600)
    expect(fs.statSync(instance).mode & 0o777).toBe(0o700)

    const retry: any = await launch.client.callTool({ name: "open_controller", arguments: { controller_session_id: session } })
    expect(retry.structuredContent).toEqual(result.structuredContent)
    expect((await request(port, "/health", { token })).json.pid).toBe(health.json.pid)

    await stopControllers(launch.root)
    const afterStop: any = await launch.client.callTool({ name: "open_controller", arguments: { controller_session_id: session } })
    expect(afterStop.isError).toBe(true)
    expect(textOf(afterStop)).toBe("Codex Replay startup failed: This controller launch was already attempted; it will not be retried.")
  })

  it("falls back to a free port when the preferred one is taken", async () => {
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve()))
    const taken = (blocker.address() as net.AddressInfo).port
    try {
      const launch = await connect({ CODEX_REPLAY_CONTROLLER_PORT: String(taken) })
      const result: any = await launch.client.callTool({ name: "open_controller", arguments: { controller_session_id: sessionId() } })
      const port = Number(new URL(result.structuredContent.launch_url).port)
      expect(port).not.toBe(taken)
      expect((await request(port, "/health")).status).toBe(200)
    } finally {
      blocker.close()
    }
  })

  it("refuses bad arguments before writing anything", async () => {
    const launch = await connect()
    const cases: Array<[unknown, string]> = [
      [{ controller_session_id: "../outside" }, "The controller session ID is invalid."],
      [{ controller_session_id: "A".repeat(32) }, "The controller session ID is invalid."],
      [{}, "The controller session ID is invalid."],
      [{ controller_session_id: sessionId(), codex_cli_path: "codex" }, "codex_cli_path must be an absolute executable file."],
      [{ controller_session_id: sessionId(), codex_cli_path: "/nonexistent/codex" }, "codex_cli_path must be an absolute executable file."],
      [{ controller_session_id: sessionId(), codex_cli_path: path.join(REPO_ROOT, "package.json") }, "codex_cli_path must be an absolute executable file."],
      [{ controller_session_id: sessionId(), extra: true }, "Unknown argument: extra."]
    ]
    for (const [args, message] of cases) {
      const result: any = await launch.client.callTool({ name: "open_controller", arguments: args as Record<string, unknown> })
      expect(result.isError, JSON.stringify(args)).toBe(true)
      expect(textOf(result)).toBe(`Codex Replay startup failed: ${message}`)
    }
    expect(listTree(launch.root)).toEqual([])
  })

  it("reports a bad environment as a tool error without writing", async () => {
    const launch = await connect({ CODEX_REPLAY_CONTROLLER_PORT: "99999" })
    const result: any = await launch.client.callTool({ name: "open_controller", arguments: { controller_session_id: sessionId() } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe("Codex Replay startup failed: CODEX_REPLAY_CONTROLLER_PORT must be from 1024 through 65535.")
    expect(listTree(launch.root)).toEqual([])
  })

  it("hands an absolute codex_cli_path to the daemon", async () => {
    const launch = await connect()
    const fake = path.join(REPO_ROOT, "test", "fake-codex", "codex")
    const result: any = await launch.client.callTool({ name: "open_controller", arguments: { controller_session_id: sessionId(), codex_cli_path: fake } })
    const port = Number(new URL(result.structuredContent.launch_url).port)
    const pid = (await request(port, "/health", { token: new URL(result.structuredContent.launch_url).searchParams.get("token") })).json.pid
    const environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")
    expect(environ).toContain(`CODEX_CLI_PATH=${fake}`)
  })
})

describe("MCP server on raw stdin", () => {
  const exchange = (lines: string[]) =>
    spawnSync(process.execPath, [BIN], {
      input: lines.join("\n") + "\n",
      env: { ...process.env, CODEX_REPLAY_RUN_ROOT: path.join(scratch(), "runs") },
      encoding: "utf8",
      timeout: 20_000
    })

  it("answers requests in order, ignores notifications, errors on unknown methods, and writes only JSON-RPC to stdout", () => {
    const result = exchange([
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } } }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "start_run", arguments: {} } }),
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }),
      JSON.stringify({ jsonrpc: "2.0", id: "five", method: "no/such/method" }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/unknown" })
    ])
    expect(result.status).toBe(0)
    const lines = result.stdout.trim().split("\n").map((line) => JSON.parse(line))
    for (const reply of lines) expect(reply.jsonrpc).toBe("2.0")
    // JSON-RPC allows answers in any order; every request gets exactly one, notifications none.
    expect(lines.map((reply) => String(reply.id)).sort()).toEqual(["1", "2", "3", "4", "five"])
    const byId = new Map(lines.map((reply) => [reply.id, reply]))
    const replies = [1, 2, 3, 4, "five"].map((id) => byId.get(id))
    expect(replies[0].result).toMatchObject({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "codex-replay" } })
    expect(replies[1].result.tools.map((tool: { name: string }) => tool.name)).toEqual(["open_controller"])
    expect(replies[2].result.isError).toBe(true)
    expect(replies[3].result).toEqual({})
    expect(replies[4].error.code).toBe(-32601)
  })

  it("answers every malformed message that it can with JSON-RPC's code and one sentence, and serves the next", () => {
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } } }
    const result = exchange([
      JSON.stringify(initialize),
      "{not json",
      "[1, 2]",
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: "x" }),
      JSON.stringify({ jsonrpc: "2.0", id: 3 }),
      JSON.stringify({ id: 4, method: "tools/list" }),
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: 7 } }),
      JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "open_controller", arguments: "x" } }),
      JSON.stringify({ jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: 5 } }),
      `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"open_controller","arguments":{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}`,
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" })
    ])
    expect(result.status).toBe(0)
    const replies = result.stdout.trim().split("\n").map((line) => JSON.parse(line))
    const byId = new Map(replies.filter((reply) => reply.id !== null).map((reply) => [reply.id, reply]))
    const error = (id: number | null) => (id === null ? replies.filter((reply) => reply.id === null) : [byId.get(id)]).map((reply) => reply.error)
    expect(error(null)).toEqual([
      { code: -32700, message: "Parse error: the line is not JSON." },
      { code: -32600, message: "Invalid request: a message must be a JSON object." },
      { code: -32600, message: "Invalid request: it nests deeper than 64 levels." }
    ])
    expect(error(2)).toEqual([{ code: -32602, message: "Invalid params: \"params\" must be an object." }])
    expect(error(3)).toEqual([{ code: -32600, message: "Invalid request: \"method\" must be a string." }])
    expect(error(4)).toEqual([{ code: -32600, message: "Invalid request: \"jsonrpc\" must be \"2.0\"." }])
    for (const id of [5, 6, 7]) {
      const [refused] = error(id)
      expect(refused.code).toBe(-32602)
      expect(refused.message).toMatch(/^Invalid params: params\.\S+: [^\n]{1,200}\.$/)
    }
    expect(byId.get(9).result).toEqual({})
    expect(byId.get(1).result.serverInfo.name).toBe("codex-replay")
    for (const reply of replies) expect(JSON.stringify(reply)).not.toMatch(/Internal error|"code":-32603/)
  })

  for (const version of ["2025-06-18", "2025-03-26"]) {
    it(`answers initialize with the client's supported version ${version}`, () => {
      const result = exchange([
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "0" } } })
      ])
      expect(JSON.parse(result.stdout.trim()).result.protocolVersion).toBe(version)
    })
  }
})

describe("retiring older controllers", () => {
  const copies: string[] = []
  afterAll(() => {
    for (const copy of copies) fs.rmSync(copy, { recursive: true, force: true })
  })

  /** A copy of the built package that reports an older version. */
  const olderInstall = () => {
    const copy = scratch("older-install-")
    copies.push(copy)
    fs.cpSync(path.join(REPO_ROOT, "dist"), path.join(copy, "dist"), { recursive: true })
    fs.cpSync(path.join(REPO_ROOT, "bin"), path.join(copy, "bin"), { recursive: true })
    fs.cpSync(path.join(REPO_ROOT, "static"), path.join(copy, "static"), { recursive: true })
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(copy, "node_modules"))
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"))
    fs.writeFileSync(path.join(copy, "package.json"), JSON.stringify({ ...manifest, version: "0.0.1" }))
    return copy
  }

  it("asks an older idle controller of this install to stop before launching", async () => {
    const root = scratch()
    const oldSession = sessionId()
    const port = await freePort()
    const older = spawnBin(["--http"], {
      bin: path.join(olderInstall(), "bin", "codex-replay.js"),
      env: { ...process.env, CODEX_REPLAY_RUN_ROOT: path.join(root, "runs"), CODEX_REPLAY_CONTROLLER_PORT: String(port), CODEX_REPLAY_CONTROLLER_SESSION_ID: oldSession }
    }).child
    const olderExit = new Promise<number | null>((resolve) => older.once("exit", resolve))
    registerRuntime(port, path.join(root, "controllers", oldSession, "controller-server.json"))
    try {
      for (let i = 0; i < 200; i++) {
        const health = await request(port, "/health").catch(() => undefined)
        if (health?.json?.version === "0.0.1" && fs.existsSync(path.join(root, "controllers", oldSession, "controller-server.json"))) break
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      const launch = await connect({}, root)
      const result: any = await launch.client.callTool({ name: "open_controller", arguments: { controller_session_id: sessionId() } })
      expect(result.isError).toBeFalsy()
      expect(await olderExit).toBe(0)
    } finally {
      older.kill("SIGKILL")
    }
  })
})
