/**
 * Whether a connection made for a callback reached this mock's own listening socket (CONTRACT.md
 * "Running the mock": callbacks never reach the mock). Checked on the address actually connected
 * to, so no spelling of the URL (a host name, an alias in /etc/hosts, a name that resolved elsewhere
 * when the URL was set) gets a callback into the mock's own routes.
 */
import { isIP } from "node:net"
import { networkInterfaces } from "node:os"
import { isLoopbackHost, isWildcardHost, type SelfAddress } from "../config/UrlRule.js"

/** The other end of a connected socket, as node:net reports it, and the local address it used. */
export interface ConnectedPeer {
  readonly remoteAddress?: string | undefined
  readonly remotePort?: number | undefined
  readonly localAddress?: string | undefined
}

/**
 * An address in one spelling: lower case, no brackets or zone, and an IPv4-mapped IPv6 address
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) as the IPv4 address it carries.
 *
 * @example
 * ```ts
 * plainAddress("[::FFFF:7f00:1]") // "127.0.0.1"
 * ```
 */
export const plainAddress = (address: string): string => {
  let a = address.toLowerCase()
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1)
  const zone = a.indexOf("%")
  if (zone >= 0) a = a.slice(0, zone)
  if (isIP(a) !== 6) return a
  // WHATWG URL writes every IPv6 spelling one way (compressed, a mapped IPv4 in hex).
  a = new URL(`http://[${a}]/`).hostname.slice(1, -1)
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a)
  if (mapped === null) return a
  const high = Number.parseInt(mapped[1]!, 16)
  const low = Number.parseInt(mapped[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/** Every address of this machine's interfaces, in {@link plainAddress} spelling. */
const interfaceAddresses = (): ReadonlySet<string> => {
  const own = new Set<string>()
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) own.add(plainAddress(entry.address))
  }
  return own
}

/**
 * Whether `peer` is this mock: the port it listens on, at an address it listens on. Bound to the
 * unspecified address (`0.0.0.0`, `::`) or to a name, it listens on every address of this
 * machine that the peer could be: a loopback address, an interface's address, or the very
 * address the connection left from (a connection to oneself).
 *
 * @example
 * ```ts
 * reachesSelf({ remoteAddress: "::ffff:127.0.0.1", remotePort: 4010, localAddress: "::ffff:127.0.0.1" }, { port: 4010, listenHost: "0.0.0.0", publicUrl: "http://127.0.0.1:4010" }) // true
 * ```
 */
export const reachesSelf = (peer: ConnectedPeer, self: SelfAddress): boolean => {
  if (peer.remoteAddress === undefined || peer.remotePort !== self.port) return false
  const remote = plainAddress(peer.remoteAddress)
  const listen = plainAddress(self.listenHost)
  // A literal address binds that one address (a name binds what it resolved to, so any of ours).
  if (isIP(listen) !== 0 && !isWildcardHost(listen)) return remote === listen
  if (isLoopbackHost(remote) || isWildcardHost(remote)) return true
  if (peer.localAddress !== undefined && plainAddress(peer.localAddress) === remote) return true
  return interfaceAddresses().has(remote)
}
