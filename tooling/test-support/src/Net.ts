// Loopback helpers: a port nobody uses, and whether something listens on one.
import { createConnection, createServer } from "node:net"

/**
 * A port that is free on 127.0.0.1 now (the OS picks it for a probe that closes at once).
 *
 * @example
 * ```ts
 * const port = await freePort()
 * ```
 */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/**
 * Whether something accepts connections on 127.0.0.1:`port` now (a silent peer counts as no after 1 s).
 *
 * @example
 * ```ts
 * expect(await accepting(port)).toBe(false)
 * ```
 */
export const accepting = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port })
    socket.setTimeout(1_000)
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
    socket.once("timeout", () => {
      socket.destroy()
      resolve(false)
    })
  })
