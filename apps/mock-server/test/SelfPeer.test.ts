// Whether a callback's connection reached the mock itself (SelfPeer.ts): every spelling of an
// address, and every way the mock can be bound.
import { networkInterfaces } from "node:os"
import { describe, expect, it } from "vitest"
import { plainAddress, reachesSelf } from "../src/callbacks/SelfPeer.js"

const at = (listenHost: string, port = 4010) => ({ port, listenHost, publicUrl: `http://127.0.0.1:${port}` })
const peer = (remoteAddress: string, remotePort = 4010, localAddress?: string) => ({
  remoteAddress,
  remotePort,
  localAddress
})

describe("plainAddress", () => {
  it("writes every spelling of an address one way", () => {
    expect(plainAddress("127.0.0.1")).toBe("127.0.0.1")
    expect(plainAddress("::ffff:127.0.0.1")).toBe("127.0.0.1")
    expect(plainAddress("[::FFFF:7f00:1]")).toBe("127.0.0.1")
    expect(plainAddress("0:0:0:0:0:ffff:a00:1")).toBe("10.0.0.1")
    expect(plainAddress("0:0:0:0:0:0:0:1")).toBe("::1")
    expect(plainAddress("fe80::1%eth0")).toBe("fe80::1")
    expect(plainAddress("LocalHost")).toBe("localhost")
  })
})

describe("reachesSelf", () => {
  it("bound to a literal address: that address and port only, in any spelling", () => {
    expect(reachesSelf(peer("127.0.0.1"), at("127.0.0.1"))).toBe(true)
    expect(reachesSelf(peer("::ffff:127.0.0.1"), at("127.0.0.1"))).toBe(true)
    expect(reachesSelf(peer("127.0.0.1", 4011), at("127.0.0.1"))).toBe(false)
    // Another address on this machine with the same port is another server.
    expect(reachesSelf(peer("127.0.0.2"), at("127.0.0.1"))).toBe(false)
    expect(reachesSelf(peer("::1"), at("0:0:0:0:0:0:0:1"))).toBe(true)
    expect(reachesSelf(peer("::1"), at("127.0.0.1"))).toBe(false)
  })

  it("bound to every address (0.0.0.0, ::): any address of this machine on its port", () => {
    for (const listen of ["0.0.0.0", "::", "[::]"]) {
      expect(reachesSelf(peer("127.0.0.1"), at(listen))).toBe(true)
      expect(reachesSelf(peer("127.9.9.9"), at(listen))).toBe(true)
      expect(reachesSelf(peer("::1"), at(listen))).toBe(true)
      expect(reachesSelf(peer("::ffff:7f00:1"), at(listen))).toBe(true)
      expect(reachesSelf(peer("0.0.0.0"), at(listen))).toBe(true)
      // A connection to oneself: the remote address is the one it left from.
      expect(reachesSelf(peer("192.0.2.7", 4010, "::ffff:192.0.2.7"), at(listen))).toBe(true)
      expect(reachesSelf(peer("192.0.2.7", 4010, "192.0.2.1"), at(listen))).toBe(false)
      expect(reachesSelf(peer("127.0.0.1", 80), at(listen))).toBe(false)
    }
  })

  it("bound to every address: each interface's address counts", () => {
    const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((one) => one.address))
    expect(addresses.length).toBeGreaterThan(0)
    for (const address of addresses) expect(reachesSelf(peer(address), at("0.0.0.0"))).toBe(true)
  })

  it("bound to a name (localhost): any address of this machine", () => {
    expect(reachesSelf(peer("127.0.0.1"), at("localhost"))).toBe(true)
    expect(reachesSelf(peer("::1"), at("localhost"))).toBe(true)
    expect(reachesSelf(peer("192.0.2.7"), at("localhost"))).toBe(false)
  })

  it("a socket that never connected reached nothing", () => {
    expect(reachesSelf({}, at("0.0.0.0"))).toBe(false)
  })
})
