// The developer menu's access decision (src/domain/auth/DevAccessPolicy.ts), as a pure function.
import { describe, expect, it } from "vitest"
import { defaults } from "../src/config/Config.js"
import { checkDevAccess, devAccessPolicy, isDevPath } from "../src/domain/auth/DevAccessPolicy.js"

const TOKEN = "a-developer-token-of-some-length"

describe("devAccessPolicy", () => {
  it("leaves the menu open on loopback, and generates a token bound anywhere else", () => {
    expect(devAccessPolicy({ ...defaults, host: "127.0.0.1" })).toEqual({
      token: undefined,
      generated: false,
      exposed: false
    })
    expect(devAccessPolicy({ ...defaults, host: "localhost" }).token).toBeUndefined()
    const exposed = devAccessPolicy({ ...defaults, host: "0.0.0.0" })
    expect(exposed).toMatchObject({ generated: true, exposed: true })
    expect(exposed.token).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect(devAccessPolicy({ ...defaults, host: "0.0.0.0" }).token).not.toBe(exposed.token)
  })

  it("uses a given token, on loopback too", () => {
    expect(devAccessPolicy({ ...defaults, host: "::", devToken: TOKEN })).toEqual({
      token: TOKEN,
      generated: false,
      exposed: true
    })
    expect(devAccessPolicy({ ...defaults, devToken: TOKEN })).toEqual({
      token: TOKEN,
      generated: false,
      exposed: false
    })
  })
})

describe("checkDevAccess", () => {
  const policy = devAccessPolicy({ ...defaults, host: "0.0.0.0", devToken: TOKEN })

  it("refuses a /dev path without the token, or with another one, as unauthorized", () => {
    for (const authorization of [
      undefined,
      "",
      `Basic ${TOKEN}`,
      "Bearer",
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(1)}`
    ]) {
      expect(checkDevAccess(policy, "/dev/platform-keys/rotate", authorization)).toMatchObject({ code: "unauthorized" })
    }
  })

  it("lets the token through, and paths outside /dev without it", () => {
    expect(checkDevAccess(policy, "/dev/merchants", `Bearer ${TOKEN}`)).toBeUndefined()
    expect(checkDevAccess(policy, "/dev/merchants", `bearer  ${TOKEN} `)).toBeUndefined()
    expect(checkDevAccess(policy, "/healthz", undefined)).toBeUndefined()
    expect(checkDevAccess(policy, "/openapi/v2/order/create", undefined)).toBeUndefined()
  })

  it("counts every spelling of a /dev path", () => {
    for (const path of ["/dev", "/dev/", "/DEV/merchants", "/%64ev/merchants", "//dev/x", "/dev/nothing-here"]) {
      expect(isDevPath(path)).toBe(true)
    }
    for (const path of ["/devices", "/h5/checkout/PC1", "/", "/docs"]) expect(isDevPath(path)).toBe(false)
  })
})
