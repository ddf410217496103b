/**
 * Who may talk to the mock from a browser (CONTRACT.md "Running the mock"): every request's `Host`
 * must name the mock (DNS rebinding), and a `/dev/` request that changes anything must not come
 * from another origin (cross-site requests). A web page the developer visits is not a program on
 * the machine: its requests reach loopback, but it cannot choose their `Host`, `Origin` or
 * `Sec-Fetch-Site` (forbidden header names), so these three say where the page came from.
 * Also the header count Node would otherwise cut silently (more than 2000 headers).
 */
import { randomUUID } from "node:crypto"
import { isIPv4, isIPv6 } from "node:net"
import { networkInterfaces } from "node:os"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { isDevPath } from "../http/DevAccess.js"
import type { EarlyAnswer } from "../http/ClientError.js"
import { isLoopbackHost, isWildcardHost, type SelfAddress } from "../UrlRule.js"

/** The most headers a request may carry: Node's default `maxHeadersCount`, now refused instead of cut. */
export const MAX_HEADERS = 2000

/**
 * An authority as a browser or client writes it in `Host` (`name`, `name:port`, `[v6]:port`). Only
 * these characters: `@`, `/`, `?`, `#`, `\` or `%` would make a URL parser read another host than a
 * proxy or browser meant (`evil@127.0.0.1:4010`), so any of them is simply not a host.
 */
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::[0-9]{1,5})?$/

/** A host and port normalized as WHATWG URL does: lower case, IPv6 compressed, numeric IPv4 forms dotted. */
export interface Authority {
  readonly host: string
  /** The port written, or `undefined` when none was. */
  readonly port: number | undefined
}

/** IPv4-mapped IPv6 (`::ffff:7f00:1`, as URL writes it) as the IPv4 address it carries. */
const unmapped = (host: string): string => {
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host)
  if (mapped === null) return host
  const high = Number.parseInt(mapped[1]!, 16)
  const low = Number.parseInt(mapped[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/**
 * A host (name or address, IPv6 with or without brackets) in one spelling: what URL makes of it,
 * without brackets and a trailing dot, IPv4-mapped IPv6 as IPv4. `undefined` when it is no host.
 *
 * @example
 * ```ts
 * canonicalHost("[::FFFF:127.0.0.1]") // "127.0.0.1"
 * canonicalHost("LocalHost.") // "localhost"
 * ```
 */
export const canonicalHost = (host: string): string | undefined => {
  const inner = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  const literal = isIPv6(inner) ? `[${inner}]` : inner
  try {
    const parsed = new URL(`http://${literal}/`).hostname
    const bare = parsed.startsWith("[") ? parsed.slice(1, -1) : parsed
    return unmapped(bare.replace(/\.$/, ""))
  } catch {
    return undefined
  }
}

const parseAuthority = (value: string): Authority | undefined => {
  if (!AUTHORITY.test(value)) return undefined
  const colon = value.lastIndexOf(":")
  const hasPort = colon !== -1 && (value.startsWith("[") ? value.indexOf("]") < colon : value.indexOf(":") === colon)
  const host = canonicalHost(hasPort ? value.slice(0, colon) : value)
  if (host === undefined) return undefined
  if (!hasPort || value.slice(colon + 1) === "") return { host, port: undefined }
  const port = Number(value.slice(colon + 1))
  return port > 65535 ? undefined : { host, port }
}

const defaultPort = (url: URL): number => (url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port))

/** Every address of this machine's interfaces, canonical. Read per check: interfaces come and go. */
const interfaceAddresses = (): ReadonlySet<string> => {
  const own = new Set<string>()
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      const address = canonicalHost(entry.address.split("%")[0]!)
      if (address !== undefined) own.add(address)
    }
  }
  return own
}

/**
 * Whether an authority names this mock: a loopback name or address with the mock's port, the
 * address it bound with that port (bound to every address: any of the machine's addresses), or
 * the public URL's host and port. `port` undefined is a Host written without one.
 *
 * @example
 * ```ts
 * namesMock({ host: "::1", port: 4010 }, { port: 4010, listenHost: "0.0.0.0", publicUrl: "http://127.0.0.1:4010" }) // true
 * ```
 */
export const namesMock = (authority: Authority, self: SelfAddress): boolean => {
  const publicUrl = new URL(self.publicUrl)
  const publicHost = canonicalHost(publicUrl.hostname)
  // Without a port only where the public URL has none either (its scheme's default, which a
  // browser and a proxy leave out).
  const publicPort = authority.port ?? (publicUrl.port === "" ? defaultPort(publicUrl) : 80)
  if (authority.host === publicHost && publicPort === defaultPort(publicUrl)) return true
  // A browser writes the port whenever it is not 80, so a Host without one means port 80.
  if ((authority.port ?? 80) !== self.port) return false
  if (isLoopbackHost(authority.host) || isWildcardHost(authority.host)) return true
  const bound = canonicalHost(self.listenHost)
  if (authority.host === bound) return true
  if (isWildcardHost(self.listenHost)) {
    return (isIPv4(authority.host) || isIPv6(authority.host)) && interfaceAddresses().has(authority.host)
  }
  return false
}

/**
 * Whether a `Host` header value names this mock ({@link namesMock}); `undefined` (HTTP/1.0 without
 * one) passes, since no browser sends a request without it.
 *
 * @example
 * ```ts
 * hostNamesMock("localhost:4010", { port: 4010, listenHost: "127.0.0.1", publicUrl: "http://127.0.0.1:4010" }) // true
 * hostNamesMock("evil.example:4010", self) // false
 * ```
 */
export const hostNamesMock = (host: string | undefined, self: SelfAddress): boolean => {
  if (host === undefined) return true
  const authority = parseAuthority(host)
  return authority !== undefined && namesMock(authority, self)
}

/**
 * Whether an `Origin` header value is one of the mock's own origins: http(s), a host that names the
 * mock, no path. `null` (a sandboxed page, a redirect, a `data:` page) is nobody's own origin.
 *
 * @example
 * ```ts
 * originIsMock("http://127.0.0.1:4010", self) // true
 * originIsMock("null", self) // false
 * ```
 */
export const originIsMock = (origin: string, self: SelfAddress): boolean => {
  const match = /^(https?):\/\/([^/]+)$/i.exec(origin)
  if (match === null) return false
  const authority = parseAuthority(match[2]!)
  if (authority === undefined) return false
  const port = authority.port ?? (match[1]!.toLowerCase() === "https" ? 443 : 80)
  return namesMock({ host: authority.host, port }, self)
}

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
