/**
 * A safety net for start-up: a request that reaches the Node server before the app's handler is
 * attached waits for it and is then answered, instead of being accepted and left hanging
 * (CONTRACT.md: "answered once it is ready or refused"). The server listens only after the app is
 * built, so this holds at most the requests of the few ticks between listening and attaching.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void

/**
 * Parks every request until the first real `request` listener is added, then hands the parked ones
 * to it in arrival order. Returns the same server.
 *
 * @example
 * ```ts
 * const server = hold(createServer())
 * server.listen(0) // a request now waits ...
 * server.on("request", handler) // ... and is answered by handler
 * ```
 */
export const hold = (server: Server): Server => {
  const parked: Array<readonly [IncomingMessage, ServerResponse]> = []
  const park: RequestListener = (request, response) => {
    parked.push([request, response])
  }
  const onNewListener = (event: string | symbol, listener: (...args: Array<never>) => void) => {
    if (event !== "request" || listener === park) return
    server.off("newListener", onNewListener)
    server.off("request", park)
    // "newListener" fires before the listener is in place: hand over once it is.
    queueMicrotask(() => {
      for (const [request, response] of parked.splice(0)) (listener as RequestListener).call(server, request, response)
    })
  }
  server.on("request", park)
  server.on("newListener", onNewListener)
  return server
}
