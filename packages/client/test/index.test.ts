import { describe, expect, it } from "@effect/vitest"
import * as Client from "../src/index.js"

describe("index", () => {
  it("exports one namespace per module", () => {
    expect(Object.keys(Client).sort()).toEqual([
      "Callback",
      "CallbackHandler",
      "PaymentClient",
      "PaymentClientError",
      "PlatformKeySource",
      "Promise",
      "ReplayGuard",
      "RequestSigning",
      "Testing"
    ])
    expect(typeof Client.PaymentClient.make).toBe("function")
    expect(typeof Client.PaymentClient.layer).toBe("function")
    expect(typeof Client.PaymentClient.layerConfig).toBe("function")
    expect(typeof Client.Callback.make).toBe("function")
    expect(typeof Client.CallbackHandler.verifyRequest).toBe("function")
    expect(typeof Client.CallbackHandler.handleNodeRequest).toBe("function")
    expect(typeof Client.Promise.createPaymentClient).toBe("function")
    expect(typeof Client.ReplayGuard.memory).toBe("function")
  })
})

describe("shared replay guard entry points", () => {
  it("each offers its one namespace, and the main entry neither (so it needs no SQL or Redis package)", async () => {
    expect(Object.keys(await import("../src/replay-sql.js"))).toEqual(["ReplaySql"])
    expect(Object.keys(await import("../src/replay-redis.js"))).toEqual(["ReplayRedis"])
    expect(Object.keys(Client)).not.toContain("ReplaySql")
    expect(Object.keys(Client)).not.toContain("ReplayRedis")
  })
})
