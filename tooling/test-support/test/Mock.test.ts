// The mock fixture starts the built @pc/mock-server on a free loopback port with an in-memory
// database, applies overrides, sends its log lines to a sink when given one, and reads /dev.
import { describe, expect, it } from "vitest"
import { devData, type PlatformKeyView, platformKeyPems, startMock, TEST_MERCHANT_APP_KEY } from "../src/Mock.js"

describe("startMock", () => {
  it("starts a mock of the environment asked for, in memory, on 127.0.0.1", async () => {
    const mock = await startMock({ environment: "production" })
    try {
      expect(mock.listenUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect([mock.environment, mock.db, mock.testMerchantAppKey]).toEqual([
        "production",
        ":memory:",
        TEST_MERCHANT_APP_KEY
      ])
      const keys = await devData<ReadonlyArray<PlatformKeyView>>(mock, "GET", "/dev/platform-keys")
      expect(keys.every((key) => key.environment === "production")).toBe(true)
      expect(Object.keys(await platformKeyPems(mock)).length).toBe(keys.length)
    } finally {
      await mock.close()
    }
  })

  it("sends every log line to logSink instead of the console", async () => {
    const lines: Array<string> = []
    const mock = await startMock({}, { logSink: (line) => lines.push(line) })
    await fetch(`${mock.url}/dev/platform-keys`)
    await mock.close()
    expect(lines.length).toBeGreaterThan(0)
  })
})
