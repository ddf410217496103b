// The one URL rule (src/config/UrlRule.ts) for notify URLs and the public base URL.
import { describe, expect, it } from "vitest"
import { checkHttpUrl, checkNotifyUrl, isLoopbackHost, isWildcardHost, pointsAtSelf } from "../src/config/UrlRule.js"

const self = { port: 4010, listenHost: "127.0.0.1", publicUrl: "https://mock.example" }

describe("isLoopbackHost and isWildcardHost", () => {
  it.each(["localhost", "LOCALHOST.", "a.localhost", "127.0.0.1", "127.9.9.9", "::1", "[::1]", "[::ffff:7f00:1]"])(
    "%s is loopback",
    (host) => expect(isLoopbackHost(host)).toBe(true)
  )
  it.each(["0.0.0.0", "::", "10.0.0.1", "example.com", "128.0.0.1", "localhost.example"])(
    "%s is not loopback",
    (host) => expect(isLoopbackHost(host)).toBe(false)
  )
  it("knows the wildcard addresses", () => {
    expect(["0.0.0.0", "::", "[::]"].map(isWildcardHost)).toEqual([true, true, true])
    expect(isWildcardHost("127.0.0.1")).toBe(false)
  })
})

describe("pointsAtSelf", () => {
  it.each([
    "http://127.0.0.1:4010/dev/platform-keys/rotate",
    "http://localhost:4010/",
    "http://127.1:4010/",
    "http://2130706433:4010/",
    "http://[::1]:4010/",
    "http://0.0.0.0:4010/",
    "https://mock.example/dev/x",
    "https://MOCK.example:443/"
  ])("%s is the mock itself", (url) => expect(pointsAtSelf(new URL(url), self)).toBe(true))

  it.each(["http://127.0.0.1:4011/", "http://mock.example/", "https://mock.example:8443/", "http://10.1.2.3:4010/"])(
    "%s is not",
    (url) => expect(pointsAtSelf(new URL(url), self)).toBe(false)
  )
})

describe("checkHttpUrl and checkNotifyUrl", () => {
  it("refuses what is not an absolute http(s) URL without credentials, naming the field", () => {
    expect(checkHttpUrl("ftp://x", "notifyUrl")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^notifyUrl: /)
    })
    expect(checkHttpUrl("http://u:p@x", "notifyUrl")).toMatchObject({ ok: false })
    expect(checkHttpUrl(42, "notifyUrl")).toMatchObject({ ok: false })
    expect(checkHttpUrl("http://x/?q=1", "--public-url", { base: true })).toMatchObject({ ok: false })
    expect(checkHttpUrl("http://x/?q=1", "notifyUrl")).toMatchObject({ ok: true })
  })

  it("refuses a notify URL that points at the mock, and accepts the merchant's own", () => {
    expect(checkNotifyUrl("http://localhost:4010/dev/platform-keys/rotate", self)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^notifyUrl: points at this mock itself/)
    })
    expect(checkNotifyUrl("http://127.0.0.1:9000/callbacks", self)).toMatchObject({ ok: true })
  })
})
