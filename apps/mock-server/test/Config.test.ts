// The mock's configuration (CONTRACT.md "Running the mock"): one check, whichever way a
// configuration is made (flags, `pc mock`, a literal given to start()), refuses what cannot run.
import { describe, expect, it } from "vitest"
import {
  ConfigError,
  check,
  defaultDbFile,
  defaults,
  fromArgs,
  type MockConfigShape,
  publicBaseUrl
} from "../src/Config.js"
import { start } from "../src/Server.js"

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

describe("fromArgs", () => {
  it("takes every flag, as `--flag value` and `--flag=value`", () => {
    const config = fromArgs([
      "--env",
      "production",
      "--host=0.0.0.0",
      "--port",
      "4399",
      "--db",
      ":memory:",
      "--public-url",
      "https://proxy.example/pc/",
      "--callback-backoff-ms",
      "500",
      "--callback-timeout-ms=2000",
      "--order-ttl-ms",
      "60000",
      "--body-limit-bytes",
      "1024",
      "--rate-limit-per-minute",
      "30"
    ])
    expect(config).toEqual({
      ...defaults,
      environment: "production",
      host: "0.0.0.0",
      port: 4399,
      db: ":memory:",
      publicUrl: "https://proxy.example/pc",
      callbackBackoffMs: 500,
      callbackTimeoutMs: 2000,
      orderTtlMs: 60_000,
      bodyLimitBytes: 1024,
      rateLimitPerMinute: 30
    })
  })

  it("keeps the data under .pc-mock/ per environment without --db", () => {
    expect(fromArgs(["--env", "gray"]).db).toBe(defaultDbFile("gray"))
    expect(fromArgs([]).db).toBe(".pc-mock/sandbox.sqlite")
  })

  it.each([
    [["--callback-backoff-ms", "0"], /--callback-backoff-ms/],
    [["--callback-backoff-ms", "-5"], /--callback-backoff-ms/],
    [["--callback-timeout-ms", "0"], /--callback-timeout-ms/],
    [["--callback-timeout-ms", "9999999999"], /--callback-timeout-ms/],
    [["--order-ttl-ms", "0"], /--order-ttl-ms/],
    [["--body-limit-bytes", "0"], /--body-limit-bytes/],
    [["--rate-limit-per-minute", "0"], /--rate-limit-per-minute/],
    [["--port", "65536"], /--port/],
    [["--port", "-1"], /--port/],
    [["--port", "80.5"], /--port/],
    [["--port", "99999999999999999999"], /--port/],
    [["--public-url", "ftp://proxy.example/"], /--public-url\b.*http/],
    [["--public-url", "http://0.0.0.0:4010"], /--public-url must name a host a browser can reach/],
    [["--dev-token", "short"], /--dev-token must be at least 16/],
    [["--dev-token", "with a space in it, long enough"], /--dev-token must be printable ASCII/],
    [["--public-url", "not a url"], /--public-url/],
    [["--public-url", "http://u:p@proxy.example/"], /--public-url/],
    [["--public-url", "http://proxy.example/?a=1"], /--public-url/],
    [["--env", "staging"], /--env/],
    [["--host", ""], /--host/],
    [["--nope", "1"], /unknown option --nope/],
    [["--port"], /--port needs a value/]
  ])("refuses %j", (argv, message) => {
    expect(refusal(() => fromArgs(["--db", ":memory:", ...argv]))).toMatch(message)
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
    expect(fromArgs(["--dev-token", "0123456789abcdef", "--db", ":memory:"]).devToken).toBe("0123456789abcdef")
    expect(fromArgs(["--db", ":memory:"]).devToken).toBeUndefined()
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
