import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import { type ControllerError, invalidArgument } from "../../domain/errors.js"
import { CONTROLLER_HOST } from "../../domain/product.js"
import { packagePath } from "./packageInfo.js"

/** A daemon started detached: its port, its pid, whether it has exited, and how to end its process group. */
export interface StartedDaemon {
  readonly port: number
  readonly pid: number | undefined
  readonly exited: () => boolean
  readonly stop: Effect.Effect<void>
}

/** Listens on the preferred port, or on any free one when it is taken, so the daemon can inherit it. */
const reservePort = (preferred: number) =>
  Effect.async<net.Server, ControllerError>((resume) => {
    const listen = (port: number, fallback: boolean) => {
      const server = net.createServer()
      server.once("error", (error: NodeJS.ErrnoException) => {
        if (fallback) listen(0, false)
        else resume(Effect.fail(invalidArgument(`An available local controller port could not be reserved: ${error.message}`)))
      })
      server.listen({ port, host: CONTROLLER_HOST, exclusive: true }, () => resume(Effect.succeed(server)))
    }
    listen(preferred, true)
  })

const signalGroup = (pid: number) => {
  try {
    process.kill(-pid, "SIGTERM")
  } catch {
    // Already gone.
  }
}

/** The daemon's process, detached in its own group, its output on `log`, the reserved socket as descriptor 3. */
const spawnDetached = (port: number, socketFd: number | undefined, log: number, env: Readonly<Record<string, string>>): StartedDaemon => {
  const inherit = typeof socketFd === "number" && socketFd >= 0
  const child = spawn(process.execPath, [packagePath("bin/codex-replay.js"), "--http"], {
    detached: true,
    stdio: inherit ? ["ignore", log, log, socketFd] : ["ignore", log, log],
    env: {
      ...process.env,
      ...env,
      CODEX_REPLAY_CONTROLLER_PORT: String(port),
      CODEX_REPLAY_CONTROLLER_SOCKET_FD: inherit ? "3" : ""
    }
  })
  child.unref()
  let exited = false
  child.once("exit", () => void (exited = true))
  const pid = child.pid
  return { port, pid, exited: () => exited, stop: Effect.sync(() => pid !== undefined && !exited && signalGroup(pid)) }
}

/**
 * Starts `bin/codex-replay.js --http` detached in its own process group, its output appended to `logPath`,
 * handing it the reserved listening socket as descriptor 3 with `env` plus the port it listens on.
 */
const spawnDaemon = (reservation: net.Server, env: Readonly<Record<string, string>>, logPath: string) =>
  Effect.try({
    try: (): StartedDaemon => {
      const port = (reservation.address() as net.AddressInfo).port
      // Node has no public accessor for a listening socket's descriptor (handing a server to a child needs an
      // IPC channel, which a detached daemon must not keep). Without one, the daemon binds the port itself.
      const socketFd = (reservation as unknown as { _handle?: { fd?: number } })._handle?.fd
      try {
        const log = fs.openSync(logPath, "a", 0o600)
        try {
          return spawnDetached(port, socketFd, log, env)
        } finally {
          fs.closeSync(log)
        }
      } finally {
        // Closed whether or not the daemon started: it holds its own copy of the socket.
        reservation.close()
      }
    },
    catch: (error) => invalidArgument(`The local controller process could not start: ${String(error)}`)
  })

/** Reserves a port (the preferred one when free) and starts the daemon on it. */
export const startDaemon = (preferredPort: number, env: Readonly<Record<string, string>>, logPath: string) =>
  Effect.flatMap(reservePort(preferredPort), (reservation) => spawnDaemon(reservation, env, logPath))
