// Loopback helpers: a port nobody uses, and whether something listens on one. Plain JavaScript on
// purpose: tooling/servers loads it by path from scripts/ensure-system-packages.mjs, on plain Node
// before the first install (Net.d.mts gives its types).
import { createConnection, createServer } from "node:net"

/** A port that is free on 127.0.0.1 now (the OS picks it for a probe that closes at once). */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })

/** Whether something accepts connections on 127.0.0.1:`port` now (a silent peer counts as no after 1 s). */
export const accepting = (port) =>
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
