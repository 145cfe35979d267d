import { Effect } from "effect"
import * as net from "node:net"
import { type SpawnFailed, spawnFailed } from "../../domain/errors.js"
import { CONTROLLER_HOST } from "../../domain/product.js"

/** A daemon started detached: its port, its pid, whether it has exited, and how to end its process group. */
export interface StartedDaemon {
  readonly port: number
  readonly pid: number | undefined
  readonly exited: () => boolean
  readonly stop: Effect.Effect<void>
}

/** A listening socket reserved for the daemon: its port and, when Node exposes it, its descriptor. */
export interface PortReservation {
  readonly port: number
  readonly socketFd: number | undefined
  readonly close: () => void
}

/** Listens on the preferred port, or on any free one when it is taken, so the daemon can inherit it. */
export const reservePort = (preferred: number) =>
  Effect.async<PortReservation, SpawnFailed>((resume) => {
    const listen = (port: number, fallback: boolean) => {
      const server = net.createServer()
      server.once("error", (error: NodeJS.ErrnoException) => {
        if (fallback) listen(0, false)
        else resume(Effect.fail(spawnFailed("the local controller", `no local port could be reserved for it (${error.message})`)))
      })
      server.listen({ port, host: CONTROLLER_HOST, exclusive: true }, () => resume(Effect.succeed(reservationOf(server))))
    }
    listen(preferred, true)
  })

const reservationOf = (server: net.Server): PortReservation => ({
  port: (server.address() as net.AddressInfo).port,
  // Node has no public accessor for a listening socket's descriptor (handing a server to a child needs an
  // IPC channel, which a detached daemon must not keep). Without one, the daemon binds the port itself.
  socketFd: (server as unknown as { _handle?: { fd?: number } })._handle?.fd,
  close: () => void server.close()
})
