// `pc` against a mock bound off loopback (every address), with its developer token and a
// --public-url that names it by one of this machine's interface addresses (issue 32): the Host and
// Origin rules must leave the developer's own tool working, and a disabled key has its way back
// (`pc merchants keys enable`).
import { defaults, start } from "@pc/mock-server"
import { createServer } from "node:net"
import { networkInterfaces } from "node:os"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Mock } from "@pc/test-support/mock"
import { freshConfigDir, merchantEnv, pcJson } from "./support/Pc.js"

const TOKEN = "an-off-loopback-developer-token"
let mock: Mock
let env: Record<string, string>

/** The first address of this machine that is not loopback: where another machine would reach it. */
const interfaceAddress = (): string => {
  const found = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((entry) => entry.family === "IPv4" && !entry.internal)
  if (found === undefined) throw new Error("this machine has no IPv4 address off loopback to bind the test to")
  return found.address
}

/** A port free on every address a moment ago: the public URL must name it before the mock starts. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "0.0.0.0", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })

beforeAll(async () => {
  const port = await freePort()
  mock = await start({
    ...defaults,
    environment: "production",
    host: "0.0.0.0",
    port,
    db: ":memory:",
    devToken: TOKEN,
    publicUrl: `http://${interfaceAddress()}:${port}`
  })
  env = { ...merchantEnv(mock, "production", freshConfigDir()), PC_DEV_TOKEN: TOKEN }
}, 60_000)
afterAll(() => mock?.close())

describe("pc against a mock bound off loopback, with its token and --public-url", () => {
  it("creates and pays an order, disables and enables the test merchant's key", async () => {
    expect(new URL(mock.url).hostname).not.toBe("127.0.0.1")
    const created = await pcJson<{ orderSn: string }>(
      ["orders", "create", "--order-id", "OFF-1", "--amount", "3", "--currency", "USD"],
      { env }
    )
    expect(created.code, created.stderr).toBe(0)
    const paid = await pcJson<{ status: string }>(["orders", "pay", created.json.orderSn], { env })
    expect(paid.json.status).toBe("PAID")

    const disabled = await pcJson(["merchants", "keys", "disable", "1"], { env })
    expect(disabled.json).toMatchObject({ version: 1, status: "disabled" })
    const refused = await pcJson(["orders", "create", "--order-id", "OFF-2", "--amount", "3", "--currency", "USD"], {
      env
    })
    expect(refused.code).toBe(1)
    expect(refused.json).toMatchObject({ error: { code: "signError" } })

    const enabled = await pcJson(["merchants", "keys", "enable", "1"], { env })
    expect(enabled.code, enabled.stderr).toBe(0)
    expect(enabled.json).toMatchObject({ version: 1, status: "active" })
    const again = await pcJson(["orders", "create", "--order-id", "OFF-2", "--amount", "3", "--currency", "USD"], {
      env
    })
    expect(again.code, again.stderr).toBe(0)
    const keys = await pcJson<Array<{ status: string }>>(["platform-keys", "list"], { env })
    expect(keys.code, keys.stderr).toBe(0)
  }, 240_000)

  it("without the token the developer menu is refused, and pc says which setting to give", async () => {
    const { PC_DEV_TOKEN: _, ...withoutToken } = env
    const refused = await pcJson(["platform-keys", "list"], { env: withoutToken })
    expect(refused.code).toBe(1)
    expect(refused.stderr + refused.stdout).toMatch(/PC_DEV_TOKEN|unauthorized/)
  }, 120_000)
})
