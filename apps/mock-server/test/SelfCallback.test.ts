// A callback never reaches the mock itself (CONTRACT.md "Running the mock"; issue 32, point 1): a
// notify URL naming this machine by a host name passes the literal self-check, and its callbacks
// used to run the mock's own developer menu (pay another order, rotate the platform key). At
// delivery the mock checks the address it actually connected to. The URLs are written straight
// into the store while the mock is stopped, as a URL set before a set-time check existed, or whose
// name resolved elsewhere when it was set, would be.
import * as Wire from "@pc/core/Wire"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { lookup } from "node:dns/promises"
import { mkdtempSync, rmSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { REACHES_SELF } from "../src/callbacks/Sender.js"
import { ATTEMPT_WITHOUT_OUTCOME } from "../src/store/DeliveryStore.js"
import { Store } from "../src/store/Store.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { pointsAtSelf } from "../src/config/UrlRule.js"
import { until } from "@pc/test-support"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { createOrder, dev, type SignedRequestOptions } from "./support/mock.js"
import { deliveriesOf } from "./support/receiver.js"

const decodeCreated = Schema.decodeUnknownSync(Wire.CreateOrderResult)

let directory: string
let mock: RunningMock
/** What the callbacks are sent to: this machine's name, and routes of the mock's developer menu. */
let payVictim: string
let rotateKey: string
let victim: string
/** A second merchant, whose callbacks go to the rotation route. */
let rotator: SignedRequestOptions

const newOrder = async (options: SignedRequestOptions = {}): Promise<string> => {
  const body = JSON.stringify({ orderId: `S-${randomUUID()}`, amount: "500.00", currency: "USD" })
  const created = await createOrder(mock.url, body, options)
  expect(created.status).toBe(200)
  return decodeCreated(created.json.data).orderSn
}

beforeAll(async () => {
  // Bound to the very address this machine's name resolves to, so that a callback to the name reaches it.
  const name = hostname()
  const { address } = await lookup(name)
  directory = mkdtempSync(join(tmpdir(), "pc-self-callback-"))
  const db = join(directory, "mock.sqlite")
  mock = await startMock({ environment: "production", db, host: address })
  const port = Number(new URL(mock.url).port)
  victim = await newOrder()
  const pair = await KeyPair.generate(2048)
  const made = await dev<{ readonly appKey: string }>(mock.url, "POST", "/dev/merchants", {
    publicKeyPem: pair.publicKeyPem
  })
  rotator = { appKey: made.json.data!.appKey, signer: await NodeCrypto.importPrivateKey(pair.privateKeyPem) }
  payVictim = `http://${name}:${port}/dev/orders/${victim}/pay`
  rotateKey = `http://${name}:${port}/dev/platform-keys/rotate`
  // The literal check lets this name through: only the connection shows where it leads.
  const self = { port, listenHost: address, publicUrl: mock.url }
  expect(pointsAtSelf(new URL(payVictim), self)).toBe(false)
  // The mock holds its database alone: it is stopped for the write, and started again on its port.
  await mock.close()
  await Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(Store, (store) =>
        Effect.zipRight(
          store.setNotifyUrl(TEST_MERCHANT_APP_KEY, payVictim, Date.now()),
          store.setNotifyUrl(rotator.appKey!, rotateKey, Date.now())
        )
      ).pipe(Effect.provide(Store.sqlite(db)))
    )
  )
  mock = await startMock({ environment: "production", db, host: address, port })
  // A connection kept alive to the stopped mock may fail once: wait until the new one answers.
  await until(
    () =>
      fetch(`${mock.url}/healthz`).then(
        (answer) => (answer.ok ? true : undefined),
        () => undefined
      ),
    "the restarted mock's /healthz"
  )
})

afterAll(async () => {
  await mock?.close()
  rmSync(directory, { recursive: true, force: true })
})

/** Pays `orderSn` and waits for its callback's first attempt to have an outcome. */
const payAndAttempt = async (orderSn: string) => {
  expect((await dev(mock.url, "POST", `/dev/orders/${orderSn}/pay`)).status).toBe(200)
  return until(async () => {
    const [delivery] = await deliveriesOf(mock.url, orderSn)
    return delivery?.attempts.find((one) => one.error !== ATTEMPT_WITHOUT_OUTCOME)
  }, "the outcome of the callback's first attempt")
}

it("a notify URL naming this machine by its host name does not pay another order", async () => {
  const attempt = await payAndAttempt(await newOrder())
  expect(attempt).toMatchObject({ httpStatus: null, error: REACHES_SELF, url: payVictim })
  const order = await dev<{ readonly status: string }>(mock.url, "GET", `/dev/orders/${victim}`)
  expect(order.json.data?.status).toBe("CREATED")
})

it("a notify URL naming this machine by its host name does not rotate the platform key", async () => {
  const attempt = await payAndAttempt(await newOrder(rotator))
  expect(attempt).toMatchObject({ httpStatus: null, error: REACHES_SELF, url: rotateKey })
  const keys = await dev<ReadonlyArray<unknown>>(mock.url, "GET", "/dev/platform-keys")
  expect(keys.json.data).toHaveLength(1)
})
