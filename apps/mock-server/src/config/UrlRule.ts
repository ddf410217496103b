/**
 * The one rule for the URLs the mock takes: notify URLs (where callbacks go) and the public base
 * URL (what h5Url is built from). Both are absolute http(s) without credentials; a notify URL must
 * not point at the mock itself (a callback would run one of its own routes, such as rotating the
 * platform key), and the public URL has no query or fragment.
 */
import * as Context from "effect/Context"
import { isIPv4 } from "node:net"
import { hostname, networkInterfaces } from "node:os"

/** Where this mock answers: the port it is bound to, the address it bound, its public URL. */
export interface SelfAddress {
  readonly port: number
  readonly listenHost: string
  readonly publicUrl: string
}

/** The running mock's {@link SelfAddress} (known once the server is bound). */
export class Self extends Context.Tag("@pc/mock-server/SelfAddress")<Self, SelfAddress>() {}

/** The outcome of a URL rule: the URL, or a message that names the field and the rule broken. */
export type UrlCheck = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly message: string }

const bare = (host: string): string => {
  const lower = host.toLowerCase().replace(/\.$/, "")
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower
}

/**
 * Whether `host` (a name or an address, IPv6 with or without brackets) always means this machine:
 * `localhost` and `*.localhost`, 127.0.0.0/8, `::1`, and IPv4-mapped forms of those.
 *
 * @example
 * ```ts
 * isLoopbackHost("127.0.0.2") // true
 * isLoopbackHost("[::1]") // true
 * isLoopbackHost("0.0.0.0") // false: that is every address, see isWildcardHost
 * ```
 */
export const isLoopbackHost = (host: string): boolean => {
  const h = bare(host)
  if (h === "localhost" || h.endsWith(".localhost")) return true
  if (isIPv4(h)) return h.startsWith("127.")
  if (h === "::1" || h === "0:0:0:0:0:0:0:1") return true
  // IPv4-mapped loopback: ::ffff:127.0.0.1, or as WHATWG URL writes it, ::ffff:7f00:1.
  return /^(0:0:0:0:0:|::)ffff:(127\.|7f[0-9a-f]{2}:)/.test(h)
}

/**
 * Whether `host` is the unspecified address (`0.0.0.0`, `::`): bound to it, the mock answers on
 * every address of the machine; connected to, it reaches this machine.
 *
 * @example
 * ```ts
 * isWildcardHost("::") // true
 * ```
 */
export const isWildcardHost = (host: string): boolean => {
  const h = bare(host)
  return h === "0.0.0.0" || h === "::" || h === "0:0:0:0:0:0:0:0"
}

const defaultPort = (url: URL): number => (url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port))

/** Every name and address this machine answers to: its host name and its interfaces' addresses. */
const ownAddresses = (): ReadonlySet<string> => {
  const own = new Set<string>([bare(hostname())])
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) own.add(bare(entry.address))
  }
  return own
}

/**
 * Whether `url` reaches this mock: its public URL's host and port, or its bound port on a loopback
 * or wildcard address, on the address it bound, or (bound to every address) on any address of
 * this machine. Names that resolve here only through DNS or /etc/hosts are not looked up.
 *
 * @example
 * ```ts
 * pointsAtSelf(new URL("http://localhost:4010/dev/platform-keys/rotate"), { port: 4010, listenHost: "127.0.0.1", publicUrl: "http://127.0.0.1:4010" }) // true
 * ```
 */
export const pointsAtSelf = (url: URL, self: SelfAddress): boolean => {
  const host = bare(url.hostname)
  const port = defaultPort(url)
  const pub = new URL(self.publicUrl)
  if (bare(pub.hostname) === host && defaultPort(pub) === port) return true
  if (port !== self.port) return false
  if (isLoopbackHost(host) || isWildcardHost(host) || host === bare(self.listenHost)) return true
  return isWildcardHost(self.listenHost) && ownAddresses().has(host)
}

/**
 * An absolute http(s) URL without a user name or password; `field` names it in the message. With
 * `base`, also without a query or fragment (a base that URLs are appended to).
 *
 * @example
 * ```ts
 * checkHttpUrl("ftp://x", "notifyUrl") // { ok: false, message: "notifyUrl: only http and https URLs ..." }
 * ```
 */
export const checkHttpUrl = (value: unknown, field: string, options: { readonly base?: boolean } = {}): UrlCheck => {
  if (typeof value !== "string") return { ok: false, message: `${field}: an absolute http(s) URL is required` }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    const shown = value.length > 100 ? `${value.slice(0, 100)}...` : value
    return { ok: false, message: `${field}: ${JSON.stringify(shown)} is not an absolute URL` }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, message: `${field}: only http and https URLs are accepted` }
  }
  // fetch refuses a URL with credentials, so every callback would fail, and each failure would
  // copy the password into lastError and the logs.
  if (url.username !== "" || url.password !== "") {
    return { ok: false, message: `${field}: must not contain a user name or password` }
  }
  if (options.base === true && (url.search !== "" || url.hash !== "")) {
    return { ok: false, message: `${field}: must not have a query or a fragment` }
  }
  return { ok: true, url }
}

/**
 * The notify URL rule: {@link checkHttpUrl}, and not this mock itself ({@link pointsAtSelf}).
 *
 * @example
 * ```ts
 * checkNotifyUrl("http://127.0.0.1:9000/callbacks", self) // { ok: true, url }
 * ```
 */
export const checkNotifyUrl = (value: unknown, self: SelfAddress): UrlCheck => {
  const checked = checkHttpUrl(value, "notifyUrl")
  if (!checked.ok) return checked
  if (pointsAtSelf(checked.url, self)) {
    return {
      ok: false,
      message: "notifyUrl: points at this mock itself; callbacks go to the merchant's own server (another host or port)"
    }
  }
  return checked
}
