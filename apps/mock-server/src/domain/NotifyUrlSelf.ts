/**
 * The notify URL rule's name resolution (CONTRACT.md "Running the mock": callbacks never reach the
 * mock): a notify URL whose host name resolves to an address the mock listens on, with the mock's
 * port, would have every callback run one of the mock's own routes. UrlRule.ts judges the URL as
 * written; this resolves the name, as the dispatcher's connection would, when the URL is set.
 */
import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { canonicalHost, namesMock } from "../config/SelfAuthority.js"
import type { SelfAddress } from "../config/UrlRule.js"

/** How long a name may take to resolve before the URL is judged as written. */
const LOOKUP_TIMEOUT_MS = 3_000

/** Resolves a name to every address (IPv4 and IPv6), as `fetch` would pick among them. */
export type LookupAll = (host: string) => Promise<ReadonlyArray<string>>

const systemLookup: LookupAll = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

const withTimeout = (pending: Promise<ReadonlyArray<string>>): Promise<ReadonlyArray<string>> => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<ReadonlyArray<string>>((resolve) => {
    timer = setTimeout(() => resolve([]), LOOKUP_TIMEOUT_MS)
  })
  return Promise.race([pending.catch(() => []), timeout]).finally(() => clearTimeout(timer))
}

const defaultPort = (url: URL): number => (url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port))

/**
 * Whether `url`'s host resolves to this mock: any of its addresses (IPv4-mapped IPv6 as IPv4) is a
 * loopback or wildcard address, the address the mock bound (its name resolved too), or, bound to
 * every address, any address of this machine, with the mock's port. A name that does not resolve
 * (or not within 3 s) is judged as written; the dispatcher checks the connected peer at delivery.
 *
 * @example
 * ```ts
 * await resolvesToSelf(new URL("http://vm:4010/dev/platform-keys/rotate"), self) // true where vm is 127.0.0.1
 * ```
 */
export const resolvesToSelf = async (
  url: URL,
  self: SelfAddress,
  lookupAll: LookupAll = systemLookup
): Promise<boolean> => {
  const host = canonicalHost(url.hostname)
  if (host === undefined || isIP(host) !== 0) return false
  const port = defaultPort(url)
  const addresses = await withTimeout(lookupAll(host))
  const bound = isIP(self.listenHost.replace(/^\[|\]$/g, "")) === 0 ? await withTimeout(lookupAll(self.listenHost)) : []
  return addresses.some((address) => {
    const canonical = canonicalHost(address)
    if (canonical === undefined) return false
    if (bound.some((b) => canonicalHost(b) === canonical) && port === self.port) return true
    return namesMock({ host: canonical, port }, self)
  })
}
