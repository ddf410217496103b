// Security round 3 (issue 32), point 1: a notify URL that names this machine by a host name (not a
// literal address) is refused when it is set, as an attacker would try it over the developer menu;
// and the resolution rule itself for spellings a real resolver here does not produce.
import { hostname, networkInterfaces } from "node:os"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { resolvesToSelf } from "../src/domain/NotifyUrlSelf.js"
import { TEST_MERCHANT_APP_KEY, testMerchantPublicKeyPem } from "../src/main/TestMerchant.js"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { dev } from "./support/mock.js"

let mock: RunningMock
let port: number

beforeAll(async () => {
  mock = await startMock()
  port = Number(new URL(mock.listenUrl).port)
})
afterAll(() => mock?.close())

const setNotifyUrl = (notifyUrl: string) =>
  dev(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl })

describe("a notify URL naming this machine by a host name", () => {
  it("is refused when set: the machine's own host name, with and without a trailing dot, any case", async () => {
    for (const name of [hostname(), `${hostname()}.`, hostname().toUpperCase()]) {
      const answer = await setNotifyUrl(`http://${name}:${port}/dev/platform-keys/rotate`)
      expect(answer.status, name).toBe(400)
      expect(answer.json.code).toBe("paramError")
      expect(answer.json.msg).toMatch(/^notifyUrl: .*this mock itself/)
    }
  })

  it("is refused on merchant creation too", async () => {
    const answer = await dev(mock.url, "POST", "/dev/merchants", {
      publicKeyPem: testMerchantPublicKeyPem(),
      notifyUrl: `http://${hostname()}:${port}/dev/orders/PC1/pay`
    })
    expect(answer.json.code).toBe("paramError")
    expect(answer.json.msg).toMatch(/^notifyUrl: .*this mock itself/)
  })

  it("is taken for another port of the same name: the merchant's receiver may live on this machine", async () => {
    expect((await setNotifyUrl(`http://${hostname()}:${port + 1}/callbacks`)).status).toBe(200)
  })
})

describe("resolvesToSelf", () => {
  const self = (listenHost: string) => ({ port: 4010, listenHost, publicUrl: `http://127.0.0.1:4010` })
  const resolvingTo =
    (...addresses: Array<string>) =>
    async (): Promise<ReadonlyArray<string>> =>
      addresses

  it("sees through IPv4-mapped IPv6, IPv6 loopback and the wildcard addresses", async () => {
    const url = new URL("http://rebind.example:4010/x")
    expect(await resolvesToSelf(url, self("127.0.0.1"), resolvingTo("::ffff:127.0.0.1"))).toBe(true)
    expect(await resolvesToSelf(url, self("127.0.0.1"), resolvingTo("203.0.113.9", "::1"))).toBe(true)
    expect(await resolvesToSelf(url, self("127.0.0.1"), resolvingTo("0.0.0.0"))).toBe(true)
    expect(await resolvesToSelf(url, self("127.0.0.1"), resolvingTo("::"))).toBe(true)
    expect(await resolvesToSelf(url, self("127.0.0.1"), resolvingTo("203.0.113.9"))).toBe(false)
  })

  it("bound to one address: that address in any spelling; bound to every address: every interface address", async () => {
    const url = new URL("http://rebind.example:4010/x")
    expect(await resolvesToSelf(url, self("192.0.2.7"), resolvingTo("::ffff:c000:207"))).toBe(true)
    const own = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((entry) => entry.address)
      .filter((address) => !address.startsWith("127.") && address !== "::1")
    for (const address of own) {
      expect(await resolvesToSelf(url, self("0.0.0.0"), resolvingTo(address)), address).toBe(true)
      expect(await resolvesToSelf(url, self("::"), resolvingTo(address)), address).toBe(true)
    }
  })

  it("bound to a name: the addresses that name resolves to", async () => {
    const lookup = async (host: string): Promise<ReadonlyArray<string>> =>
      host === "mock-host" ? ["198.51.100.4"] : ["198.51.100.4"]
    expect(await resolvesToSelf(new URL("http://alias.example:4010/"), self("mock-host"), lookup)).toBe(true)
  })

  it("another port, or a name that does not resolve, is not the mock by resolution", async () => {
    expect(await resolvesToSelf(new URL("http://x.example:4011/"), self("127.0.0.1"), resolvingTo("127.0.0.1"))).toBe(
      false
    )
    const failing = async (): Promise<ReadonlyArray<string>> => {
      throw new Error("ENOTFOUND")
    }
    expect(await resolvesToSelf(new URL("http://x.example:4010/"), self("127.0.0.1"), failing)).toBe(false)
  })
})
