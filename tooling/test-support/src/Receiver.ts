// A merchant's callback endpoint in the tests: a real node:http server on 127.0.0.1 (port 0). The
// receiver keeps every request's headers and exact bytes and answers as the test says; the endpoint
// hands each request to the test's own handler (a framework adapter, a verifier under test).
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse
} from "node:http"
import type { AddressInfo } from "node:net"
import { readBody } from "./Http.js"
import { until } from "./Poll.js"

/** One request a receiver got, exactly as it arrived. */
export interface ReceivedRequest {
  /** Date.now() when the request's headers arrived. */
  readonly receivedAtMs: number
  /** performance.now() when the request's headers arrived (for latency). */
  readonly receivedAtPerf: number
  readonly method: string
  /** The request target (path and query). */
  readonly url: string
  readonly headers: IncomingHttpHeaders
  /** The body bytes untouched. */
  readonly rawBody: Uint8Array
  /** The body as UTF-8 text. */
  readonly body: string
}

/** A callback kept exactly as it arrived, to replay it (changed or not): its headers (lower case) and raw body. */
export interface CapturedCallback {
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
}

/**
 * What to answer: an HTTP status (with a short text body), never answer at all, or a status after
 * `delayMs`, with `body` and `headers` (default `content-type: text/plain`), left open (never
 * ended) when `keepOpen`.
 */
export type Answer =
  | number
  | "hang"
  | {
      readonly status: number
      readonly delayMs?: number
      readonly body?: string
      readonly headers?: Readonly<Record<string, string>>
      readonly keepOpen?: boolean
    }

/** A receiver: where it listens, what it got, and how to steer and await it. */
export interface Receiver {
  /** `http://127.0.0.1:<port><path>`: the notifyUrl to give the mock. */
  readonly url: string
  /** Every request so far, in arrival order. */
  readonly received: ReadonlyArray<ReceivedRequest>
  /** Sets how the receiver answers the requests from now on (`n` is the 0-based request number). */
  answer(answer: Answer | ((request: ReceivedRequest, n: number) => Answer)): void
  /** Resolves once `count` requests matching `predicate` arrived, with those requests; rejects after `timeoutMs` (10 s). */
  waitFor(
    count: number,
    predicate?: (request: ReceivedRequest) => boolean,
    timeoutMs?: number
  ): Promise<ReadonlyArray<ReceivedRequest>>
  /** Ends the requests still open (hung or kept open) and closes the server. */
  close(): Promise<void>
}

/** Where a receiver or an endpoint listens: the path of its URL (default `/callbacks`). */
export interface EndpointOptions {
  readonly path?: string
}

/** An endpoint whose requests a handler of the test's answers. */
export interface Endpoint {
  /** `http://127.0.0.1:<port><path>`. */
  readonly url: string
  close(): Promise<void>
}

const listen = async (server: Server, path: string) => {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return `http://127.0.0.1:${port}${path}`
}

/**
 * Starts a receiver on 127.0.0.1, port 0, that records every request and answers `initial` (200)
 * until told otherwise.
 *
 * @example
 * ```ts
 * const receiver = await startReceiver(500)
 * await setNotifyUrl(mock, receiver.url)
 * receiver.answer(200)
 * const [first, second] = await receiver.waitFor(2)
 * await receiver.close()
 * ```
 */
export const startReceiver = async (
  initial: Answer | ((request: ReceivedRequest, n: number) => Answer) = 200,
  options: EndpointOptions = {}
): Promise<Receiver> => {
  const received: Array<ReceivedRequest> = []
  const open = new Set<ServerResponse>()
  const holdOpen = (res: ServerResponse) => {
    open.add(res)
    res.on("close", () => open.delete(res))
  }
  let decide: (request: ReceivedRequest, n: number) => Answer = typeof initial === "function" ? initial : () => initial
  const server = createServer((req, res) => {
    const receivedAtMs = Date.now()
    const receivedAtPerf = performance.now()
    void readBody(req).then(
      (raw) => {
        const request: ReceivedRequest = {
          receivedAtMs,
          receivedAtPerf,
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          rawBody: new Uint8Array(raw),
          body: raw.toString("utf8")
        }
        const n = received.length
        received.push(request)
        const answer = decide(request, n)
        if (answer === "hang") return holdOpen(res)
        const {
          status,
          delayMs = 0,
          body,
          headers,
          keepOpen = false
        } = typeof answer === "number" ? { status: answer } : answer
        const write = () => {
          res.writeHead(status, headers ?? { "content-type": "text/plain" })
          const text = body ?? (status >= 200 && status < 300 ? "ok" : `receiver says ${status}`)
          if (!keepOpen) return res.end(text)
          holdOpen(res)
          res.write(text)
        }
        if (delayMs === 0) return write()
        holdOpen(res)
        setTimeout(() => {
          if (!res.destroyed) write()
        }, delayMs)
      },
      () => req.socket.destroy()
    )
  })
  const url = await listen(server, options.path ?? "/callbacks")
  return {
    url,
    received,
    answer: (answer) => {
      decide = typeof answer === "function" ? answer : () => answer
    },
    waitFor: (count, predicate = () => true, timeoutMs = 10_000) =>
      until(
        () => {
          const matching = received.filter(predicate)
          return matching.length >= count ? matching : undefined
        },
        `${count} callback request(s) at the receiver (got ${received.length} in all)`,
        { timeoutMs, intervalMs: 10 }
      ),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/**
 * Starts an endpoint on 127.0.0.1, port 0, that hands every request to `handler` unread; when the
 * handler throws, the request is answered 500 naming why.
 *
 * @example
 * ```ts
 * const endpoint = await startEndpoint(async (req, res) => {
 *   const event = await verifier.verifyCallback({ headers: headersOf(req), body: await readBody(req) })
 *   res.writeHead(200).end(event.eventId)
 * })
 * ```
 */
export const startEndpoint = async (
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
  options: EndpointOptions = {}
): Promise<Endpoint> => {
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
      res.end(`receiver failed: ${error instanceof Error ? error.message : String(error)}`)
    })
  })
  const url = await listen(server, options.path ?? "/callbacks")
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
