// A callback receiver that holds every request open until the test releases it: how many attempts
// are in flight at once is then something the test counts, not something it has to catch in time.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { readBody, until } from "@pc/test-support"

/** One request held open: where it was sent (the path names the merchant), its headers and body. */
export interface HeldRequest {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly eventId: string
  readonly orderSn: string
}

export interface HoldingReceiver {
  /** The base URL; give each merchant its own path under it (`${url}/m1`). */
  readonly url: string
  /** Every request that arrived, in order. */
  readonly received: ReadonlyArray<HeldRequest>
  /** The requests held open now, oldest first. */
  readonly held: ReadonlyArray<HeldRequest>
  /** The most requests held at once: in all, per path, and per eventId. */
  readonly most: () => {
    readonly all: number
    readonly perPath: ReadonlyMap<string, number>
    readonly perEvent: number
  }
  /** Answers the oldest `count` held requests (all by default) with 200. */
  release(count?: number): void
  /** Answers with 200 every request held for at least `ms` (so none of them was answered fast); resolves how many. */
  releaseHeldFor(ms: number): number
  /** Answers the next `count` requests with 200 as they arrive, instead of holding them (they count as received). */
  answerAtOnce(count: number): void
  /** Resolves once at least `count` requests are held at the same time. */
  waitHeld(count: number, timeoutMs?: number): Promise<void>
  /** Resolves once `count` requests arrived in all. */
  waitReceived(count: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

/** Starts a holding receiver on 127.0.0.1, port 0. */
export const startHoldingReceiver = async (): Promise<HoldingReceiver> => {
  const received: Array<HeldRequest> = []
  const held: Array<{ readonly request: HeldRequest; readonly res: ServerResponse; readonly atMs: number }> = []
  let mostAll = 0
  let mostPerEvent = 0
  const mostPerPath = new Map<string, number>()
  let atOnce = 0
  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const { eventId, orderSn } = JSON.parse(raw.toString("utf8")) as {
        eventId: string
        orderSn: string
      }
      const request: HeldRequest = { path: req.url ?? "", headers: req.headers, eventId, orderSn }
      received.push(request)
      if (atOnce > 0) {
        atOnce--
        res.writeHead(200, { "content-type": "text/plain" }).end("ok")
        return
      }
      held.push({ request, res, atMs: performance.now() })
      res.on("close", () => {
        const at = held.findIndex((entry) => entry.res === res)
        if (at >= 0) held.splice(at, 1)
      })
      mostAll = Math.max(mostAll, held.length)
      const onPath = held.filter((entry) => entry.request.path === request.path).length
      mostPerPath.set(request.path, Math.max(mostPerPath.get(request.path) ?? 0, onPath))
      mostPerEvent = Math.max(mostPerEvent, held.filter((entry) => entry.request.eventId === eventId).length)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    get held() {
      return held.map((entry) => entry.request)
    },
    most: () => ({ all: mostAll, perPath: mostPerPath, perEvent: mostPerEvent }),
    releaseHeldFor: (ms) => {
      const now = performance.now()
      const due = held.filter((entry) => now - entry.atMs >= ms)
      for (const entry of due) {
        held.splice(held.indexOf(entry), 1)
        entry.res.writeHead(200, { "content-type": "text/plain" }).end("ok")
      }
      return due.length
    },
    answerAtOnce: (count) => {
      atOnce += count
    },
    release: (count = held.length) => {
      for (const { res } of held.splice(0, count)) res.writeHead(200, { "content-type": "text/plain" }).end("ok")
    },
    waitHeld: (count, timeoutMs = 30_000) =>
      until(() => (held.length >= count ? true : undefined), `${count} requests held at once (${held.length} now)`, {
        timeoutMs,
        intervalMs: 10
      }).then(() => undefined),
    waitReceived: (count, timeoutMs = 30_000) =>
      until(
        () => (received.length >= count ? true : undefined),
        `${count} requests in all (${received.length} so far)`,
        { timeoutMs, intervalMs: 10 }
      ).then(() => undefined),
    close: () =>
      new Promise<void>((resolve) => {
        for (const { res } of held.splice(0)) res.destroy()
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
