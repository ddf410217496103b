/**
 * Who may talk to the mock from a browser (CONTRACT.md "Running the mock"): every request's `Host`
 * must name the mock (DNS rebinding), and a `/dev/` request that changes anything must not come
 * from another origin (cross-site requests). A web page the developer visits is not a program on
 * the machine: its requests reach loopback, but it cannot choose their `Host`, `Origin` or
 * `Sec-Fetch-Site` (forbidden header names), so these three say where the page came from.
 * Also the header count Node would otherwise cut silently (more than 2000 headers).
 */
import { randomUUID } from "node:crypto"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { isDevPath } from "../domain/auth/DevAccessPolicy.js"
import type { EarlyAnswer } from "./ClientError.js"
import { hostNamesMock, originIsMock } from "../config/SelfAuthority.js"
import type { SelfAddress } from "../config/UrlRule.js"

/** The most headers a request may carry: Node's default `maxHeadersCount`, now refused instead of cut. */
export const MAX_HEADERS = 2000

/** Methods that read only: a cross-site page can send them, but without CORS headers never reads the answer. */
const READS = new Set(["GET", "HEAD", "OPTIONS"])

const unauthorized = (msg: string): EarlyAnswer => ({ status: 401, code: "unauthorized", msg })

/** The first value of a header as received (Node joins or drops repeats by its own rules). */
const headerValues = (rawHeaders: ReadonlyArray<string>, name: string): ReadonlyArray<string> => {
  const values: Array<string> = []
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const key = rawHeaders[i]!
    if (key.length === name.length && key.toLowerCase() === name) values.push(rawHeaders[i + 1]!)
  }
  return values
}

/**
 * The refusal of a request by where it came from, or `undefined` when it may go on: too many
 * headers (431 paramError), a `Host` that does not name the mock (401), or a `/dev/` request that
 * changes something from another origin (401: an `Origin` or `Sec-Fetch-Site` that is not the
 * mock's own).
 *
 * @example
 * ```ts
 * requestGuardViolation(req, self) // { status: 401, code: "unauthorized", msg: "..." } or undefined
 * ```
 */
export const requestGuardViolation = (
  request: Pick<IncomingMessage, "rawHeaders" | "method" | "url">,
  self: SelfAddress
): EarlyAnswer | undefined => {
  const { rawHeaders } = request
  if (rawHeaders.length / 2 > MAX_HEADERS) {
    return {
      status: 431,
      code: "paramError",
      msg: `the request has more than ${MAX_HEADERS} headers; the mock reads at most ${MAX_HEADERS}`
    }
  }
  const [host] = headerValues(rawHeaders, "host")
  if (!hostNamesMock(host, self)) {
    return unauthorized(
      "the Host header does not name this mock (a loopback name or address with its port, the bound address, or the --public-url host)"
    )
  }
  if (READS.has(request.method ?? "GET") || !isDevPath(pathOnly(request.url ?? "/"))) return undefined
  for (const origin of headerValues(rawHeaders, "origin")) {
    if (!originIsMock(origin.trim(), self)) {
      return unauthorized("cross-site request refused: the developer menu takes changes only from its own pages")
    }
  }
  for (const site of headerValues(rawHeaders, "sec-fetch-site")) {
    // "none": the developer typed the URL or used a bookmark; anything else came from another page.
    const value = site.trim().toLowerCase()
    if (value !== "same-origin" && value !== "none") {
      return unauthorized("cross-site request refused: the developer menu takes changes only from its own pages")
    }
  }
  return undefined
}

/** The path of a request target, origin form or absolute form. */
const pathOnly = (target: string): string => {
  if (!target.startsWith("/")) {
    try {
      return new URL(target).pathname
    } catch {
      return target
    }
  }
  const end = target.search(/[?#]/)
  return end === -1 ? target : target.slice(0, end)
}

/**
 * Refuses, in front of every `request` listener (the create-order fast path and the app alike),
 * what {@link requestGuardViolation} refuses, with the envelope (the request's framing is intact,
 * so its body is read and dropped and the connection stays usable). Lets Node keep one header more than {@link MAX_HEADERS}, so that a request over the
 * limit is seen and refused rather than cut.
 *
 * @example
 * ```ts
 * const server = withRequestGuard(createServer(), { port: 4010, listenHost: "127.0.0.1", publicUrl: "http://127.0.0.1:4010" })
 * ```
 */
export const withRequestGuard = (server: Server, self: SelfAddress): Server => {
  server.maxHeadersCount = MAX_HEADERS + 1
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>): boolean => {
    if (event === "request") {
      const [req, res] = args as [IncomingMessage, ServerResponse]
      const violation = requestGuardViolation(req, self)
      if (violation !== undefined) {
        req.resume()
        const body = JSON.stringify({ code: violation.code, msg: violation.msg, data: null })
        res.writeHead(violation.status, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-request-id": randomUUID(),
          ...(violation.status === 401 ? { "www-authenticate": "Bearer" } : {})
        })
        res.end(body)
        return true
      }
    }
    return emit(event, ...args)
  }) as Server["emit"]
  return server
}
