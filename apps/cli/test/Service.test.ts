// The commands over the service and the developer menu, against a real production mock: orders
// create/show/pay, merchants show/keys add/keys disable, platform-keys list/rotate, callbacks
// resend; --json parses for each, and the exit codes: 1 when the service says no (signError,
// duplicateOrder, a move of a final order), 2 on usage, 3 when nothing answers.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, merchantEnv, pc, pcJson } from "./support/Pc.js"

let mock: Mock
let env: Record<string, string>
const dir = mkdtempSync(join(tmpdir(), "pc-service-"))

beforeAll(async () => {
  mock = await startMock({ environment: "production" })
  env = merchantEnv(mock, "production", freshConfigDir())
}, 60_000)
afterAll(() => mock?.close())

describe("pc orders, merchants, platform-keys, callbacks resend", () => {
  it("creates, shows and pays an order; refuses a duplicate (1) and a final order's move (1)", async () => {
    const created = await pcJson<{ orderSn: string; h5Url: string }>(
      ["orders", "create", "--order-id", "CLI-1", "--amount", "10.5", "--currency", "USD"],
      { env }
    )
    expect(created.code, created.stderr).toBe(0)
    expect(created.json.h5Url).toContain(`/h5/checkout/${created.json.orderSn}`)

    const duplicate = await pcJson(["orders", "create", "--order-id", "CLI-1", "--amount", "11", "--currency", "USD"], {
      env
    })
    expect(duplicate.code).toBe(1)
    expect(duplicate.json).toMatchObject({ error: { kind: "Refused", code: "duplicateOrder" } })

    const paid = await pcJson<{ status: string }>(["orders", "pay", created.json.orderSn], { env })
    expect(paid.json.status).toBe("PAID")
    const again = await pcJson(["orders", "fail", created.json.orderSn], { env })
    expect(again.code).toBe(1)
    expect(again.json).toMatchObject({ error: { code: "paramError" } })

    const shown = await pcJson<{ status: string; amount: string; callbacks: Array<{ id: string; eventType: string }> }>(
      ["orders", "show", created.json.orderSn],
      { env }
    )
    expect(shown.json).toMatchObject({ status: "PAID", amount: "10.50" })
    expect(shown.json.callbacks.map((c) => c.eventType)).toEqual(["order.paid"])
    const resent = await pcJson<{ id: string }>(["callbacks", "resend", shown.json.callbacks[0]!.id], { env })
    expect(resent.code).toBe(0)
    expect(resent.json.id).toBe(shown.json.callbacks[0]!.id)
  }, 240_000)

  it("says signError (1) with the client's hint for a key the service does not know, 3 when unreachable", async () => {
    const otherKey = join(dir, "other-private.pem")
    const { KeyPair } = await import("@pc/crypto-node")
    writeFileSync(otherKey, (await KeyPair.generate()).privateKeyPem, { mode: 0o600 })
    const refused = await pcJson(["orders", "create", "--order-id", "CLI-2", "--amount", "1", "--currency", "USD"], {
      env: { ...env, PC_KEY_FILE: otherKey }
    })
    expect(refused.code).toBe(1)
    expect(refused.json).toMatchObject({ error: { kind: "Refused", code: "signError" } })
    const local = await pcJson(["orders", "create", "--order-id", "CLI-3", "--amount", "1.001", "--currency", "USD"], {
      env
    })
    expect(local.code).toBe(2)
    const unreachable = await pcJson(
      ["orders", "create", "--order-id", "CLI-4", "--amount", "1", "--currency", "USD"],
      {
        env: { ...env, PC_BASE_URL: "http://127.0.0.1:9" }
      }
    )
    expect(unreachable.code).toBe(3)
    expect(unreachable.json).toMatchObject({ error: { kind: "Network" } })
  }, 240_000)

  it("adds and disables merchant keys, lists and rotates platform keys", async () => {
    const { KeyPair } = await import("@pc/crypto-node")
    const publicFile = join(dir, "second-public.pem")
    writeFileSync(publicFile, (await KeyPair.generate()).publicKeyPem)
    const added = await pcJson<{ keyVersion: number }>(["merchants", "keys", "add", publicFile], { env })
    expect(added.json.keyVersion).toBe(2)
    const disabled = await pcJson(["merchants", "keys", "disable", "2"], { env })
    expect(disabled.json).toMatchObject({ version: 2, status: "disabled" })
    const merchant = await pcJson<{ keys: Array<{ version: number; status: string }> }>(["merchants", "show"], { env })
    expect(merchant.json.keys.map((k) => [k.version, k.status])).toEqual([
      [1, "active"],
      [2, "disabled"]
    ])
    // Published first, as the service does; the second rotate makes it sign.
    const published = await pcJson<{ version: number; status: string }>(["platform-keys", "rotate"], { env })
    expect(published.json.status).toBe("published")
    const rotated = await pcJson<{ version: number; status: string }>(["platform-keys", "rotate"], { env })
    expect(rotated.json).toMatchObject({ version: published.json.version, status: "current" })
    const list = await pcJson<Array<{ version: number; status: string }>>(["platform-keys", "list"], { env })
    expect(list.json.find((k) => k.version === rotated.json.version)?.status).toBe("current")
    expect(list.json.length).toBeGreaterThanOrEqual(2)
  }, 240_000)

  it("trigger waits for the first delivery attempt and says the merchant has no notify URL", async () => {
    const triggered = await pcJson<{ status: string; delivery: { deliveryId: string; attempt: { url: null } } }>(
      ["trigger", "order.expired"],
      { env }
    )
    expect(triggered.code, triggered.stderr).toBe(0)
    expect(triggered.json).toMatchObject({ status: "EXPIRED", delivery: { attempt: { attempt: 1, url: null } } })
    const human = await pc(["trigger", "order.failed"], { env })
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toMatch(/^triggered order\.failed: order PC\S+ .* is FAILED$/m)
    expect(human.stdout).toMatch(/^not delivered: the merchant has no notify URL$/m)
    const quick = await pcJson<Record<string, unknown>>(["trigger", "order.paid", "--no-wait"], { env })
    expect(quick.json.status).toBe("PAID")
    expect(quick.json).not.toHaveProperty("delivery")
  }, 120_000)
})
