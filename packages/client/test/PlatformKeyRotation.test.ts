// A platform key rotation under a stream of real callbacks from the real mock: a verifier with a
// live platform key source refuses none, even when the new key signs at once.
import { NodeCrypto } from "@pc/crypto-node"
import { Effect } from "effect"
import { startMock as startMockInProcess } from "@pc/mock-server"
import { afterEach, describe, expect, it } from "vitest"
import * as PlatformKeySource from "../src/PlatformKeySource.js"
import * as PaymentConnect from "../src/Promise.js"
import { type Endpoint as Receiver, startEndpoint as startReceiver, until } from "@pc/test-support"
import {
  deliveriesOf,
  dev,
  type Mock,
  platformKeyPems,
  setNotifyUrl,
  startMock,
  TEST_MERCHANT_APP_KEY,
  testMerchantPrivateKeyPem
} from "@pc/test-support/mock"

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

/** The receiver's verdicts, by HTTP status, and the key versions of the callbacks it accepted. */
interface Tally {
  readonly statuses: Array<number>
}

const receiverFor = async (verifier: () => PaymentConnect.CallbackVerifierClient, tally: Tally): Promise<Receiver> => {
  const receiver = await startReceiver(async (req, res) => {
    res.on("finish", () => tally.statuses.push(res.statusCode))
    await verifier().nodeCallbackHandler(() => undefined)(req, res)
  })
  closers.push(() => receiver.close())
  return receiver
}

/** Creates `count` orders and pays each, running `steps[i]` before the i-th. */
const payStream = async (
  mock: Mock,
  prefix: string,
  count: number,
  steps: Readonly<Record<number, () => Promise<void>>>
) => {
  const client = await PaymentConnect.createPaymentClient({
    environment: "sandbox",
    baseUrl: mock.url,
    appKey: TEST_MERCHANT_APP_KEY,
    crypto: NodeCrypto,
    privateKeys: { 1: testMerchantPrivateKeyPem() }
  })
  const orderSns: Array<string> = []
  for (let i = 0; i < count; i++) {
    await steps[i]?.()
    const order = await client.createOrder({ orderId: `${prefix}-${i}`, amount: "10.00", currency: "USD" })
    await dev(mock, "POST", `/dev/orders/${order.orderSn}/pay`)
    orderSns.push(order.orderSn)
  }
  return orderSns
}

const deliveredAll = (mock: Mock, orderSns: ReadonlyArray<string>) =>
  until(async () => {
    const all = await Promise.all(orderSns.map((sn) => deliveriesOf(mock, sn)))
    const flat = all.flat()
    return flat.length === orderSns.length && flat.every((d) => d.status === "delivered") ? flat : undefined
  }, "every callback delivered")

describe("platform key rotation under a stream of callbacks", () => {
  it("a live source (the mock's /dev/platform-keys) refuses no callback when the new key signs at once", async () => {
    const mock = await startMock({ environment: "sandbox" })
    closers.push(() => mock.close())
    const tally: Tally = { statuses: [] }
    let lookups = 0
    const fetchKey = PlatformKeySource.fetchFromMock(mock.url)
    const verifier = await PaymentConnect.createCallbackVerifier({
      environment: "sandbox",
      appKey: TEST_MERCHANT_APP_KEY,
      crypto: NodeCrypto,
      // The keys known at startup, and the source for the version a rotation brings.
      platformKeys: { sandbox: await platformKeyPems(mock) },
      platformKeySource: (environment, version) => {
        lookups++
        return fetchKey(environment, version)
      }
    })
    const receiver = await receiverFor(() => verifier, tally)
    await setNotifyUrl(mock, TEST_MERCHANT_APP_KEY, receiver.url)

    const orderSns = await payStream(mock, "rot-live", 40, {
      20: async () => {
        const rotated = await dev<{ readonly version: number }>(mock, "POST", "/dev/platform-keys/rotate")
        expect(rotated.envelope.data?.version).toBe(2)
      }
    })
    const deliveries = await deliveredAll(mock, orderSns)
    const versions = deliveries.map((d) => d.attempts.at(-1)?.keyVersion)
    console.info(
      `live source: ${tally.statuses.length} callbacks received, ${tally.statuses.filter((s) => s !== 200).length} refused, ` +
        `${versions.filter((v) => v === 1).length} signed v1, ${versions.filter((v) => v === 2).length} signed v2, ${lookups} lookups`
    )
    expect(tally.statuses.filter((status) => status !== 200)).toEqual([])
    expect(deliveries.every((d) => d.attemptCount === 1)).toBe(true)
    expect(versions).toContain(1)
    expect(versions).toContain(2)
    // One lookup for the new version, however many callbacks it signed.
    expect(lookups).toBe(1)
  }, 60_000)

  it("static keys updated between publish and activate refuse no callback, and the replay guard survives the rebuild", async () => {
    const mock = await startMock({ environment: "sandbox" })
    closers.push(() => mock.close())
    const tally: Tally = { statuses: [] }
    // One guard for every verifier this process builds: a rebuild on rotation must not forget deliveries.
    const replayGuard = PaymentConnect.ReplayGuard.memory()
    const build = async () =>
      PaymentConnect.createCallbackVerifier({
        environment: "sandbox",
        appKey: TEST_MERCHANT_APP_KEY,
        crypto: NodeCrypto,
        platformKeys: { sandbox: await platformKeyPems(mock) },
        replayGuard
      })
    let verifier = await build()
    const receiver = await receiverFor(() => verifier, tally)
    await setNotifyUrl(mock, TEST_MERCHANT_APP_KEY, receiver.url)
    const statusOf = async (version: number) =>
      (
        await dev<ReadonlyArray<{ version: number; status: string }>>(mock, "GET", "/dev/platform-keys")
      ).envelope.data?.find((k) => k.version === version)?.status

    const orderSns = await payStream(mock, "rot-static", 45, {
      // Step 1: the service publishes v2; callbacks are still signed with v1.
      15: async () => {
        const published = await dev<{ version: number; status: string }>(mock, "POST", "/dev/platform-keys/rotate", {
          publishOnly: true
        })
        expect(published.envelope.data).toMatchObject({ version: 2, status: "published" })
        // The merchant deploys the new static keys (v1 and v2) while callbacks keep coming.
        verifier = await build()
      },
      // Step 2: v2 signs; v1 stays published.
      30: async () => {
        const activated = await dev<{ version: number; status: string }>(mock, "POST", "/dev/platform-keys/2/activate")
        expect(activated.envelope.data).toMatchObject({ version: 2, status: "current" })
        expect(await statusOf(1)).toBe("published")
      }
    })
    const deliveries = await deliveredAll(mock, orderSns)
    const versions = deliveries.map((d) => d.attempts.at(-1)?.keyVersion)
    console.info(
      `static keys: ${tally.statuses.length} callbacks received, ${tally.statuses.filter((s) => s !== 200).length} refused, ` +
        `${versions.filter((v) => v === 1).length} signed v1, ${versions.filter((v) => v === 2).length} signed v2`
    )
    expect(tally.statuses.filter((status) => status !== 200)).toEqual([])
    // Delivery runs beside the stream: a callback queued just before the activation may be signed after it.
    expect(versions.filter((v) => v === 1).length).toBeGreaterThanOrEqual(15)
    expect(versions.filter((v) => v === 2).length).toBeGreaterThanOrEqual(1)

    // The current key cannot be retired; a published one can; an unknown version is notFound.
    const retired = await dev(mock, "POST", "/dev/platform-keys/2/retire")
    expect(retired.status).toBe(400)
    expect((await dev(mock, "POST", "/dev/platform-keys/1/retire")).status).toBe(200)
    expect(await statusOf(1)).toBe("retired")
    expect((await dev(mock, "POST", "/dev/platform-keys/7/activate")).status).toBe(404)
  }, 60_000)

  it("the mock's source sends the developer token that startMock({ devToken }) requires", async () => {
    const devToken = "client-test-token-0123456789"
    const mock = await startMockInProcess({ environment: "sandbox", devToken, logLevel: "none" })
    closers.push(() => mock.close())
    const withToken = PaymentConnect.fetchMockPlatformKey(mock.url, { devToken })
    expect(await withToken("sandbox", 1)).toContain("BEGIN PUBLIC KEY")
    expect(await withToken("sandbox", 2)).toBeUndefined()
    await expect(Promise.resolve(PaymentConnect.fetchMockPlatformKey(mock.url)("sandbox", 1))).rejects.toThrow(
      /HTTP 401/
    )
  })

  it("a source is looked up once per unknown version per interval, and a failing source answers 500", async () => {
    let calls = 0
    const source = PlatformKeySource.make(
      () => {
        calls++
        return undefined
      },
      { crypto: NodeCrypto, refreshInterval: "1 minute" }
    )
    for (let i = 0; i < 5; i++) expect(await Effect.runPromise(source.lookup("production", 9))).toBeUndefined()
    expect(calls).toBe(1)

    const failing = PlatformKeySource.make(
      () => {
        throw new Error("vault unreachable")
      },
      { crypto: NodeCrypto }
    )
    const error = await Effect.runPromise(Effect.flip(failing.lookup("production", 2)))
    expect(error._tag).toBe("PlatformKeySourceError")
    expect(error.message).toContain("vault unreachable")
  })
})
