// Which names and origins are the mock's own (CONTRACT.md "Running the mock": the Host and Origin
// rules, callbacks never reach the mock): every spelling made one as WHATWG URL makes it, so a name,
// an IPv6 form or an IPv4-mapped address cannot pass for another. The request guard
// (server/HostCheck.ts) and the notify-URL check (domain/NotifyUrlSelf.ts) both judge by these.
import { isIPv4, isIPv6 } from "node:net"
import { networkInterfaces } from "node:os"
import { isLoopbackHost, isWildcardHost, type SelfAddress } from "./UrlRule.js"

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

// Every request's Host is judged, and a client sends the same one on every request: the last
// value's parse is kept (a pure function of the text), so a request does not build a URL for it.
let lastAuthority: { readonly value: string; readonly authority: Authority | undefined } | undefined

const parseAuthority = (value: string): Authority | undefined => {
  if (lastAuthority?.value !== value) lastAuthority = { value, authority: parseAuthorityOnce(value) }
  return lastAuthority.authority
}

const parseAuthorityOnce = (value: string): Authority | undefined => {
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

/** The mock's own public host and port and bound host, canonical: what every request's Host is compared with. */
interface OwnAuthorities {
  readonly publicUrl: string
  readonly listenHost: string
  readonly publicHost: string | undefined
  readonly publicUrlPort: number
  readonly publicUrlHasPort: boolean
  readonly bound: string | undefined
}

// Worked out again only when the mock's address changes (another mock in the same process).
let own: OwnAuthorities | undefined

const ownAuthorities = (self: SelfAddress): OwnAuthorities => {
  if (own?.publicUrl === self.publicUrl && own.listenHost === self.listenHost) return own
  const publicUrl = new URL(self.publicUrl)
  own = {
    publicUrl: self.publicUrl,
    listenHost: self.listenHost,
    publicHost: canonicalHost(publicUrl.hostname),
    publicUrlPort: defaultPort(publicUrl),
    publicUrlHasPort: publicUrl.port !== "",
    bound: canonicalHost(self.listenHost)
  }
  return own
}

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
  const { publicHost, publicUrlPort, publicUrlHasPort, bound } = ownAuthorities(self)
  // Without a port only where the public URL has none either (its scheme's default, which a
  // browser and a proxy leave out).
  const publicPort = authority.port ?? (publicUrlHasPort ? 80 : publicUrlPort)
  if (authority.host === publicHost && publicPort === publicUrlPort) return true
  // A browser writes the port whenever it is not 80, so a Host without one means port 80.
  if ((authority.port ?? 80) !== self.port) return false
  if (isLoopbackHost(authority.host) || isWildcardHost(authority.host)) return true
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
