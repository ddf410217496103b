// The mock's configuration (CONTRACT.md "Running the mock"): one check, whichever way a
// configuration is made (`pc mock`'s flags, startMock's options, a literal given to start()),
// refuses what cannot run. The flags themselves are `pc mock`'s (apps/cli/test/Mock.test.ts).
import { describe, expect, it } from "vitest"
import {
  ConfigError,
  check,
  defaultDbFile,
  defaults,
  type MockConfigShape,
  publicBaseUrl
} from "../src/config/Config.js"
import { start } from "../src/main/Server.js"

const base: MockConfigShape = { ...defaults, port: 0, db: ":memory:" }

const refusal = (run: () => unknown): string => {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).message
  }
  throw new Error("expected a ConfigError")
}

describe("check, on what the flags of pc mock hand it", () => {
  it.each([
    [{ publicUrl: "http://0.0.0.0:4010" }, /--public-url must name a host a browser can reach/],
    [{ devToken: "short" }, /--dev-token must be at least 16/],
    [{ devToken: "with a space in it, long enough" }, /--dev-token must be printable ASCII/],
    [{ publicUrl: "http://u:p@proxy.example/" }, /--public-url/],
    [{ publicUrl: "http://proxy.example/?a=1" }, /--public-url/]
  ])("refuses %j", (change, message) => {
    expect(refusal(() => check({ ...base, ...change }))).toMatch(message)
  })
})

describe("check", () => {
  it("accepts the defaults and a test's configuration", () => {
    expect(check(base)).toEqual(base)
    expect(check({ ...defaults, db: defaultDbFile("sandbox") }).port).toBe(4010)
  })

  it("removes a public URL's trailing slashes", () => {
    expect(check({ ...base, publicUrl: "https://proxy.example/pc//" }).publicUrl).toBe("https://proxy.example/pc")
  })

  it.each([
    [{ callbackBackoffMs: 0 }, /--callback-backoff-ms/],
    [{ callbackBackoffMs: -1 }, /--callback-backoff-ms/],
    [{ callbackBackoffMs: 1.5 }, /--callback-backoff-ms/],
    [{ callbackBackoffMs: Number.NaN }, /--callback-backoff-ms/],
    [{ callbackMaxAgeMs: 0 }, /callbackMaxAgeMs/],
    [{ callbackTimeoutMs: 0 }, /--callback-timeout-ms/],
    [{ callbackPollMs: 0 }, /callbackPollMs/],
    [{ callbackPollMs: 2 ** 31 }, /callbackPollMs/],
    [{ orderTtlMs: -1 }, /--order-ttl-ms/],
    [{ bodyLimitBytes: 0 }, /--body-limit-bytes/],
    [{ rateLimitPerMinute: 0 }, /--rate-limit-per-minute/],
    [{ port: 70_000 }, /--port/],
    [{ port: -1 }, /--port/],
    [{ publicUrl: "ftp://proxy.example" }, /--public-url/],
    [{ publicUrl: "/relative" }, /--public-url/],
    [{ environment: "staging" }, /--env/]
  ] as ReadonlyArray<readonly [Record<string, unknown>, RegExp]>)("refuses %j", (change, message) => {
    // Literals from untyped callers (JavaScript, JSON): the check may not trust the types.
    const config = { ...base, ...change } as MockConfigShape
    expect(refusal(() => check(config))).toMatch(message)
  })
})

describe("start", () => {
  it("refuses a configuration the check refuses, before it binds or opens anything", async () => {
    await expect(start({ ...base, callbackBackoffMs: 0 })).rejects.toBeInstanceOf(ConfigError)
    await expect(start({ ...base, port: 70_000 })).rejects.toThrow(/--port/)
    await expect(start({ ...base, publicUrl: "ftp://proxy.example" })).rejects.toThrow(/--public-url/)
  })
})

describe("--dev-token and the public URL of a wildcard bind", () => {
  it("takes a developer token of 16 printable characters or more", () => {
    expect(check({ ...base, devToken: "0123456789abcdef" }).devToken).toBe("0123456789abcdef")
    expect(check(base).devToken).toBeUndefined()
  })

  it("hands out a host a browser can open when bound to every address, unless --public-url says another", () => {
    expect(publicBaseUrl({ ...defaults, host: "0.0.0.0" }, 4010)).toBe("http://127.0.0.1:4010")
    expect(publicBaseUrl({ ...defaults, host: "::" }, 4010)).toBe("http://127.0.0.1:4010")
    expect(publicBaseUrl({ ...defaults, host: "::1" }, 4010)).toBe("http://[::1]:4010")
    expect(publicBaseUrl({ ...defaults, host: "0.0.0.0", publicUrl: "https://mock.example" }, 4010)).toBe(
      "https://mock.example"
    )
  })
})
