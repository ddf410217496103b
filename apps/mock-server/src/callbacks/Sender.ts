/**
 * How one callback goes on the wire: a POST whose answer is read only as far as the attempt's
 * record needs, within the attempt's time, and never to the mock itself. The dispatcher sends
 * through the {@link Sender} interface, so what an attempt does is apart from how it is carried.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import type { Socket } from "node:net"
import type { SelfAddress } from "../config/UrlRule.js"
import { reachesSelf } from "./SelfPeer.js"

/** How much of a merchant's answer the attempt's record keeps. */
export const EXCERPT = 200
/** How much of a merchant's answer is read: enough for the excerpt, never a whole large body. */
const ANSWER_PREFIX_BYTES = 1024

/** The error of an attempt whose connection reached the mock's own listening address. */
export const REACHES_SELF = "refused: the notify URL reaches the mock itself"

/** What a POST of a callback came to: the merchant's status and the start of its answer, or why there is none. */
export type PostResult = { readonly status: number; readonly excerpt: string } | { readonly error: string }

/** Carries callbacks to merchants' endpoints. */
export interface Sender {
  /**
   * POSTs `body` to `url` and calls `done` once with the status and the start of the answer, or
   * why there is none, within the attempt's time; returns a function that cancels it (`done` is
   * then not called). Redirects are not followed (CONTRACT.md: a 3xx is a failed attempt).
   */
  readonly post: (
    url: string,
    headers: Record<string, string>,
    body: string,
    done: (result: PostResult) => void
  ) => () => void
}

/** The first `max` bytes (about) of a response body as text; the rest is never downloaded. */
export const readPrefix = (response: IncomingMessage, max: number): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const done = () => {
      response.off("data", onData)
      // Decoded by Buffer, without a TextDecoder made per answer or a copy of a one-chunk body (the
      // usual short answer); a character cut at `max` reads as U+FFFD either way. A leading byte
      // order mark is left out, as TextDecoder leaves it out: it is not part of the answer's text.
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
      const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0
      resolve(body.toString("utf8", start, Math.max(start, Math.min(max, body.length))))
    }
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      // Enough read: the rest is dropped with the connection rather than downloaded.
      if (size >= max) {
        response.destroy()
        done()
      }
    }
    response.on("data", onData)
    response.once("end", done)
    // A body cut off (or timed out) after the status line: the status is what counts.
    response.once("error", done)
    response.once("close", done)
  })

/** A connection refused because it reached the mock itself. */
class ReachesSelfError extends Error {
  constructor() {
    super(REACHES_SELF)
  }
}

/**
 * Refuses the request's connection if it reached the mock itself, before a byte of the request is
 * written: the request is written on connect by a listener added after this one, and a socket
 * reused by the keep-alive agent is checked as it is handed over (it was checked when it connected).
 */
const guardConnection = (request: ClientRequest, self: SelfAddress) => {
  request.once("socket", (socket: Socket) => {
    const check = () => {
      if (reachesSelf(socket, self)) socket.destroy(new ReachesSelfError())
    }
    if (socket.connecting) socket.once("connect", check)
    else check()
  })
}

/**
 * A {@link Sender} over node:http(s), with keep-alive agents (consecutive callbacks to one endpoint
 * reuse a connection instead of a TCP and TLS handshake each) of at most `maxSockets` sockets per
 * endpoint, closed with the scope. Plain node:http callbacks, no fiber per attempt. A connection
 * that reaches `self` (the mock's listening address, whatever name led there) is closed unwritten.
 *
 * @example
 * ```ts
 * const sender = yield* makeHttpSender({ timeoutMs: 10_000, maxSockets: 128, self })
 * sender.post(url, headers, body, (result) => console.log(result))
 * ```
 */
export const makeHttpSender = (options: {
  readonly timeoutMs: number
  readonly maxSockets: number
  readonly self: SelfAddress
}): Effect.Effect<Sender, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => ({
        http: new HttpAgent({ keepAlive: true, maxSockets: options.maxSockets }),
        https: new HttpsAgent({ keepAlive: true, maxSockets: options.maxSockets })
      })),
      (made) =>
        Effect.sync(() => {
          made.http.destroy()
          made.https.destroy()
        })
    ),
    (agents): Sender => ({
      post: (url, headers, body, whenDone) => {
        const target = new URL(url)
        const secure = target.protocol === "https:"
        const payload = Buffer.from(body, "utf8")
        // What the attempt's closures hold is let go of as soon as it ends. A scavenge keeps every
        // young object that something in the old generation points to, dead or alive, until the
        // next full GC; node:http leaves these closures reachable from its objects (listeners, and
        // the cancel in OnTheWire), so an ended attempt's closures that still held its request,
        // answer and record had them promoted with it (bench/RESULTS.md).
        let done: ((result: PostResult) => void) | undefined = whenDone
        let response: IncomingMessage | undefined
        let current: ClientRequest | undefined
        let timer: ReturnType<typeof setTimeout> | undefined
        const release = () => {
          done = undefined
          response = undefined
          current = undefined
          clearTimeout(timer)
          timer = undefined
        }
        const finish = (result: PostResult) => {
          const then = done
          if (then === undefined) return
          release()
          then(result)
        }
        const request = (secure ? httpsRequest : httpRequest)(target, {
          method: "POST",
          agent: secure ? agents.https : agents.http,
          headers: { ...headers, "content-length": String(payload.length) }
        })
        current = request
        guardConnection(request, options.self)
        timer = setTimeout(() => {
          // Once the status line is in, the status counts and the body read so far is the excerpt.
          if (response !== undefined) response.destroy()
          else {
            const cut = current
            finish({ error: `no answer within ${options.timeoutMs} ms` })
            cut?.destroy()
          }
        }, options.timeoutMs)
        request.once("response", (answer) => {
          response = answer
          void readPrefix(answer, ANSWER_PREFIX_BYTES).then((text) =>
            finish({ status: answer.statusCode ?? 0, excerpt: text.slice(0, EXCERPT) })
          )
        })
        request.on("error", (cause) => {
          if (response !== undefined) return
          finish({ error: cause instanceof ReachesSelfError ? cause.message : `request failed: ${cause.message}` })
        })
        request.end(payload)
        return () => {
          const cut = current
          release()
          cut?.destroy()
        }
      }
    })
  )
