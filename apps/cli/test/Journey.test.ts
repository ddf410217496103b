// The newcomer's journey, each step a `pc` process: keys generate -> merchants create -> listen
// --forward-to a receiver -> trigger order.paid. The listener prints a verified order.paid and the
// receiver gets the exact bytes and signature headers the mock sent; the mock records the
// receiver's status as the delivery's.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, pcBackground, pcJson, type Running } from "./support/Pc.js"
import { type Receiver, startReceiver } from "@pc/test-support"

let mock: Mock
let receiver: Receiver
let listener: Running | undefined

beforeAll(async () => {
  // Production checks every signature: the merchant's key and the CLI's signing are really exercised.
  mock = await startMock({ environment: "production" })
  receiver = await startReceiver(202, { path: "/webhooks" })
}, 60_000)

afterAll(async () => {
  listener?.child.kill("SIGKILL")
  await receiver?.close()
  await mock?.close()
})

describe("journey", () => {
  it("keys generate -> merchants create -> listen --forward-to -> trigger order.paid", async () => {
    const env = { PC_CONFIG_DIR: freshConfigDir(), PC_BASE_URL: mock.url, PC_ENV: "production" }
    const dir = mkdtempSync(join(tmpdir(), "pc-journey-"))

    const keys = await pcJson<{ privateKeyFile: string; publicKeyFile: string }>(["keys", "generate", "--out", dir], {
      env
    })
    expect(keys.code, keys.stderr).toBe(0)

    const merchant = await pcJson<{ appKey: string; keyVersion: number }>(
      ["merchants", "create", "--public-key", keys.json.publicKeyFile, "--key-file", keys.json.privateKeyFile],
      { env }
    )
    expect(merchant.code, merchant.stderr).toBe(0)
    expect(merchant.json.keyVersion).toBe(1)

    listener = pcBackground(["listen", "--forward-to", receiver.url, "--json"], { env })
    const ready = JSON.parse(await listener.waitForLine((l) => l.includes('"type":"ready"'), "ready"))
    expect(ready).toMatchObject({ appKey: merchant.json.appKey, environment: "production", forwardTo: receiver.url })

    const triggered = await pcJson<{ orderSn: string; status: string }>(["trigger", "order.paid"], { env })
    expect(triggered.code, triggered.stderr).toBe(0)
    expect(triggered.json.status).toBe("PAID")
    // trigger waited for the first delivery attempt: the receiver's answer, relayed by the listener.
    expect(triggered.json).toMatchObject({
      delivery: { status: "delivered", attempt: { attempt: 1, url: ready.notifyUrl, httpStatus: 202 } }
    })

    const line = await listener.waitForLine((l) => l.includes('"type":"callback"'), "the callback")
    const event = JSON.parse(line)
    expect(event).toMatchObject({
      verdict: "verified",
      eventType: "order.paid",
      orderSn: triggered.json.orderSn,
      amount: "10.00",
      currency: "USD",
      keyVersion: "1",
      forwarded: { url: receiver.url, status: 202 },
      answered: 202
    })

    // The receiver got the mock's bytes exactly, with the signature headers.
    const deliveries = await fetch(`${mock.url}/dev/callbacks?orderSn=${triggered.json.orderSn}`).then((r) => r.json())
    const delivery = deliveries.data[0]
    expect(receiver.received).toHaveLength(1)
    expect(receiver.received[0]!.body).toBe(delivery.body)
    expect(receiver.received[0]!.headers["x-r-signature"]).toMatch(/^[A-Za-z0-9+/]+=*$/)
    expect(receiver.received[0]!.headers["x-r-key-version"]).toBe("1")
    expect(receiver.received[0]!.headers["content-type"]).toBe("application/json")
    // The mock saw the receiver's answer, relayed by the listener.
    expect(delivery.attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([202])
    // --json: every stdout line of the listener is one JSON document.
    for (const l of listener.stdout().trim().split("\n")) expect(() => JSON.parse(l)).not.toThrow()
  }, 240_000)
})
