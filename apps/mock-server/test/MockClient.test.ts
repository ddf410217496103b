// The typed client made from the mock's HttpApi definition drives every /dev route against a real
// mock over real HTTP: answers decoded by the same Schemas the mock encodes with, error envelopes
// as typed errors.
import type * as Wire from "@pc/core/Wire"
import { KeyPair } from "@pc/crypto-node"
import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as MockClient from "../src/api/MockClient.js"
import { NotFound, ParamError } from "../src/api/WireErrors.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder } from "./support/mock.js"
import { type Receiver, startReceiver, until } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"

let mock: Mock
let receiver: Receiver

beforeAll(async () => {
  mock = await startMock()
  receiver = await startReceiver()
})
afterAll(async () => {
  await mock?.close()
  await receiver?.close()
})

const run = <A, E>(use: (client: MockClient.MockClient) => Effect.Effect<A, E>) => MockClient.run(mock.url, use)

let sequence = 0
const newOrder = async () => {
  const orderId = `client-${process.pid}-${++sequence}`
  const created = await createOrder(mock.url, JSON.stringify({ orderId, amount: "12.30", currency: "USD" }))
  expect(created.json.code).toBe("SUCCESS")
  return (created.json.data as Wire.CreateOrderResult).orderSn
}

describe("MockClient", () => {
  it("creates a merchant, uploads and disables a key, and sets its notify URL", async () => {
    const first = await KeyPair.generate(2048)
    const second = await KeyPair.generate(2048)
    const created = await run((client) =>
      client.dev.createMerchant({ payload: { publicKeyPem: first.publicKeyPem, notifyUrl: receiver.url } })
    )
    expect(created).toMatchObject({ code: "SUCCESS", msg: null, data: { keyVersion: 1 } })
    const appKey = created.data.appKey
    const added = await run((client) =>
      client.dev.addMerchantKey({ path: { appKey }, payload: { publicKeyPem: second.publicKeyPem } })
    )
    expect(added.data).toEqual({ keyVersion: 2 })
    const disabled = await run((client) => client.dev.disableMerchantKey({ path: { appKey, version: 1 } }))
    expect(disabled.data).toEqual({ version: 1, status: "disabled" })
    const set = await run((client) =>
      client.dev.setNotifyUrl({ path: { appKey }, payload: { notifyUrl: "http://127.0.0.1:9/cb" } })
    )
    expect(set.data).toEqual({ appKey, notifyUrl: "http://127.0.0.1:9/cb" })
    const merchant = await run((client) => client.dev.getMerchant({ path: { appKey } }))
    expect(merchant.data.notifyUrl).toBe("http://127.0.0.1:9/cb")
    expect(merchant.data.keys.map((key) => [key.version, key.status])).toEqual([
      [1, "disabled"],
      [2, "active"]
    ])
  })

  it("lists and rotates the platform keys", async () => {
    const before = await run((client) => client.dev.listPlatformKeys())
    const rotated = await run((client) => client.dev.rotatePlatformKey({ payload: {} }))
    expect(rotated.data.status).toBe("current")
    expect(rotated.data.version).toBe(Math.max(...before.data.map((key) => key.version)) + 1)
    const after = await run((client) => client.dev.listPlatformKeys())
    expect(after.data.find((key) => key.version === rotated.data.version)?.status).toBe("current")
    expect(after.data.length).toBe(before.data.length + 1)
  })

  it("reads, pays, fails and expires orders, and reads and resends their deliveries", async () => {
    await run((client) =>
      client.dev.setNotifyUrl({ path: { appKey: TEST_MERCHANT_APP_KEY }, payload: { notifyUrl: receiver.url } })
    )
    const paid = await newOrder()
    expect((await run((client) => client.dev.getOrder({ path: { orderSn: paid } }))).data.status).toBe("CREATED")
    expect((await run((client) => client.dev.payOrder({ path: { orderSn: paid } }))).data.status).toBe("PAID")
    const failed = await newOrder()
    expect((await run((client) => client.dev.failOrder({ path: { orderSn: failed } }))).data.status).toBe("FAILED")
    const expired = await newOrder()
    expect((await run((client) => client.dev.expireOrder({ path: { orderSn: expired } }))).data.status).toBe("EXPIRED")
    const delivered = await until(
      async () => {
        const { data } = await run((client) => client.dev.listCallbacks({ urlParams: { orderSn: paid } }))
        return data[0]?.status === "delivered" ? data[0] : undefined
      },
      "the order.paid delivery",
      { timeoutMs: 10_000, intervalMs: 10 }
    )
    expect(delivered.eventType).toBe("order.paid")
    expect(delivered.attempts[0]?.httpStatus).toBe(200)
    const all = await run((client) => client.dev.listCallbacks({ urlParams: {} }))
    expect(all.data.map((d) => d.orderSn)).toEqual(expect.arrayContaining([paid, failed, expired]))
    const resent = await run((client) => client.dev.resendCallback({ path: { id: delivered.id } }))
    expect(resent.data.id).toBe(delivered.id)
    expect(resent.data.status).toBe("pending")
  })

  it("lists the newest orders and merchants, bounded by limit, and the newest deliveries with each attempt's request", async () => {
    const [older, newer] = [await newOrder(), await newOrder()]
    const orders = await run((client) => client.dev.listOrders({ urlParams: { limit: 2 } }))
    expect(orders.data.map((order) => order.orderSn)).toEqual([newer, older])
    expect(orders.data[0]).toMatchObject({ appKey: TEST_MERCHANT_APP_KEY, status: "CREATED", amount: "12.30" })
    const merchant = await KeyPair.generate(2048)
    const created = await run((client) =>
      client.dev.createMerchant({ payload: { publicKeyPem: merchant.publicKeyPem, notifyUrl: receiver.url } })
    )
    const merchants = await run((client) => client.dev.listMerchants({ urlParams: {} }))
    expect(merchants.data[0]).toEqual({
      appKey: created.data.appKey,
      notifyUrl: receiver.url,
      keys: [{ version: 1, status: "active", uploadedAt: expect.any(String) }]
    })
    expect(merchants.data.map((m) => m.appKey)).toContain(TEST_MERCHANT_APP_KEY)
    await run((client) =>
      client.dev.setNotifyUrl({ path: { appKey: TEST_MERCHANT_APP_KEY }, payload: { notifyUrl: receiver.url } })
    )
    await run((client) => client.dev.payOrder({ path: { orderSn: newer } }))
    const [sent] = await receiver.waitFor(1, (r) => r.body.includes(newer))
    const [delivery] = await until(
      async () => {
        const { data } = await run((client) => client.dev.listCallbacks({ urlParams: { limit: 1 } }))
        return data[0]?.orderSn === newer && data[0].status === "delivered" ? data : undefined
      },
      "the newest delivery",
      { timeoutMs: 10_000, intervalMs: 10 }
    )
    expect(delivery!.appKey).toBe(TEST_MERCHANT_APP_KEY)
    expect(delivery!.attempts[0]).toMatchObject({
      requestBody: sent!.body,
      requestHeaders: { "X-R-Signature": sent!.headers["x-r-signature"], "X-R-Ts": sent!.headers["x-r-ts"] }
    })
  })

  it.each([["0"], ["201"], ["1.5"], ["ten"]])("refuses limit=%s with paramError naming the limit", async (limit) => {
    for (const path of ["/dev/orders", "/dev/merchants", "/dev/callbacks"]) {
      const response = await fetch(`${mock.url}${path}?limit=${limit}`)
      expect(response.status).toBe(400)
      const body = (await response.json()) as { code: string; msg: string }
      expect(body.code).toBe("paramError")
      expect(body.msg).toMatch(/^limit: /)
    }
  })

  it("fails with the typed error of an error envelope", async () => {
    const missing = await run((client) => Effect.either(client.dev.getOrder({ path: { orderSn: "PC-none" } })))
    expect(Either.isLeft(missing) && missing.left instanceof NotFound).toBe(true)
    const paid = await newOrder()
    await run((client) => client.dev.payOrder({ path: { orderSn: paid } }))
    const again = await run((client) => Effect.either(client.dev.payOrder({ path: { orderSn: paid } })))
    expect(Either.isLeft(again) && again.left instanceof ParamError && again.left.msg).toMatch(/already PAID/)
  })
})
