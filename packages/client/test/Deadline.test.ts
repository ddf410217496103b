// Per-call deadlines and cancellation of createOrder, in both APIs, against the real mock and a
// real HTTP server that misbehaves on purpose: the deadline bounds retries and Retry-After waits.
import { NodeCrypto } from "@pc/crypto-node"
import { Effect, Redacted } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as NodeHttpClient from "../src/NodeHttpClient.js"
import * as PaymentClient from "../src/PaymentClient.js"
import * as PaymentConnect from "../src/Promise.js"
import { type Attempt, type Reply, startFaultServer, success } from "./support/FaultServer.js"
import { freePort } from "@pc/test-support"
import { type Mock, startMock, TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem } from "@pc/test-support/mock"
import { APP_KEY, keyOf } from "./support/vectors.js"

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

const serve = async (script: (attempt: Attempt, index: number) => Reply) => {
  const server = await startFaultServer(script)
  closers.push(() => server.close())
  return server
}

const promiseClient = (baseUrl: string, overrides: Partial<PaymentConnect.PaymentClientOptions> = {}) =>
  PaymentConnect.createPaymentClient({
    environment: "production",
    baseUrl,
    appKey: APP_KEY,
    crypto: NodeCrypto,
    privateKeys: { 1: keyOf("merchant-v1").privatePkcs8Pem },
    ...overrides
  })

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error("expected a rejection")
    },
    (error: unknown) => error
  )

const input = { orderId: "M-1001", amount: "10.00", currency: "USD" }
const rateLimited = (seconds: number): Reply => ({
  kind: "envelope",
  status: 429,
  code: "rateLimited",
  msg: "slow down",
  headers: { "retry-after": String(seconds) }
})

/**
 * The mock's rate limit counts per clock minute, so a refusal's Retry-After is the rest of that
 * minute: near its end it falls under the 10 s deadline and the client rightly waits. Starting with
 * at least 25 s of the minute left keeps the Retry-After past the deadline.
 */
const withRoomInTheMinute = async () => {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < 25_000) await new Promise((resolve) => setTimeout(resolve, left + 50))
}

describe("createOrder deadlines against the real mock", () => {
  let mock: Mock
  const mockClient = () =>
    PaymentConnect.createPaymentClient({
      environment: "sandbox",
      baseUrl: mock.url,
      appKey: TEST_MERCHANT_APP_KEY,
      crypto: NodeCrypto,
      privateKeys: { 1: testMerchantPrivateKeyPem() }
    })

  it("the default deadline (10 s) refuses a rate limit's long Retry-After at once instead of holding the checkout", async () => {
    mock = await startMock({ environment: "sandbox", rateLimitPerMinute: 1 })
    closers.push(() => mock.close())
    const client = await mockClient()
    await withRoomInTheMinute()
    await client.createOrder({ ...input, orderId: "M-deadline-1" })
    const startedAt = Date.now()
    const error = await rejection(client.createOrder({ ...input, orderId: "M-deadline-2" }))
    const took = Date.now() - startedAt
    expect(error).toBeInstanceOf(PaymentConnect.RateLimitedError)
    const limited = error as PaymentConnect.RateLimitedError
    expect(limited.retryable).toBe(true)
    expect(limited.retryAfterMs).toBeGreaterThan(10_000)
    // Below both the 10 s deadline and the Retry-After: no wait was started (a margin for a loaded
    // 2-core machine, where one signed request has taken seconds).
    expect(took).toBeLessThan(9_000)
  }, 60_000)

  it("a per-call timeout succeeds within it against the mock, and is checked like the client's", async () => {
    mock = await startMock({ environment: "sandbox" })
    closers.push(() => mock.close())
    const client = await mockClient()
    const order = await client.createOrder({ ...input, orderId: "M-deadline-3" }, { timeout: 3_000 })
    expect(order.outerOrder).toBe("M-deadline-3")
    const bad = await rejection(client.createOrder({ ...input, orderId: "M-deadline-4" }, { timeout: -1 }))
    expect(bad).toBeInstanceOf(PaymentConnect.ConfigurationError)
  }, 30_000)
})

describe("createOrder deadlines and cancellation", () => {
  it("a Retry-After inside the call's timeout is waited for; one past it fails at once", async () => {
    // The first call is told to wait 1 s, then succeeds; the second is told to wait 30 s.
    const server = await serve((attempt, index) =>
      index === 0 ? rateLimited(1) : index === 1 ? success(attempt) : rateLimited(30)
    )
    const client = await promiseClient(server.url)
    const startedAt = Date.now()
    await client.createOrder(input, { timeout: 10_000 })
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_000)
    const early = Date.now()
    const error = await rejection(client.createOrder(input, { timeout: 5_000 }))
    expect(error).toBeInstanceOf(PaymentConnect.RateLimitedError)
    expect(server.attempts).toHaveLength(3)
    // Neither the 30 s nor the 5 s was waited: it gave up at once.
    expect(Date.now() - early).toBeLessThan(5_000)
  })

  it("a server that never answers is cut at the call's timeout: TimeoutError with attempts and elapsed time", async () => {
    const server = await serve(() => ({ kind: "hang" }))
    const client = await promiseClient(server.url)
    const error = await rejection(client.createOrder(input, { timeout: 300 }))
    expect(error).toBeInstanceOf(PaymentConnect.TimeoutError)
    const timeout = error as PaymentConnect.TimeoutError
    expect(timeout.code).toBe("ERR_PC_TIMEOUT")
    expect(timeout.scope).toBe("deadline")
    expect(timeout.retryable).toBe(true)
    expect(timeout.message).toContain("before the retry deadline")
    expect(timeout.attempts).toBe(1)
    expect(timeout.elapsedMs).toBeGreaterThanOrEqual(290)
    // Cut by the 300 ms, not by the 10 s a single attempt may take (a margin for a loaded machine).
    expect(timeout.elapsedMs).toBeLessThan(5_000)
  })

  it("an unreachable service fails with TransportError saying how many attempts and how long", async () => {
    const port = await freePort()
    const client = await promiseClient(`http://127.0.0.1:${port}`, { retry: { baseDelay: 20, maxDelay: 50 } })
    const error = await rejection(client.createOrder(input))
    expect(error).toBeInstanceOf(PaymentConnect.TransportError)
    const transport = error as PaymentConnect.TransportError
    expect(transport.message).toContain(`127.0.0.1:${port}`)
    expect(transport.attempts).toBe(4)
    expect(transport.elapsedMs).toBeGreaterThan(0)
    expect(transport.retryable).toBe(true)
  })

  it("an aborted signal rejects with its reason, mid-attempt, in the Promise API", async () => {
    const server = await serve(() => ({ kind: "hang" }))
    const client = await promiseClient(server.url)
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error("shopper left")), 100)
    const startedAt = Date.now()
    const error = await rejection(client.createOrder(input, { signal: controller.signal }))
    expect((error as Error).message).toBe("shopper left")
    // Cut by the abort, not by the 10 s attempt timeout.
    expect(Date.now() - startedAt).toBeLessThan(5_000)
  })

  it("an aborted signal interrupts the Effect call, and a per-call timeout bounds it", async () => {
    const server = await serve(() => ({ kind: "hang" }))
    const program = Effect.gen(function* () {
      const client = yield* PaymentClient.make({
        environment: "production",
        baseUrl: server.url,
        appKey: APP_KEY,
        crypto: NodeCrypto,
        privateKeys: { 1: Redacted.make(keyOf("merchant-v1").privatePkcs8Pem) }
      })
      const timedOut = yield* Effect.flip(client.createOrder(input, { timeout: "200 millis" }))
      const aborted = yield* Effect.exit(client.createOrder(input, { signal: AbortSignal.timeout(100) }))
      return { timedOut, aborted }
    }).pipe(Effect.provide(NodeHttpClient.layer))
    const { timedOut, aborted } = await Effect.runPromise(program)
    expect(timedOut._tag).toBe("Timeout")
    expect(timedOut._tag === "Timeout" && timedOut.attempts).toBe(1)
    expect(aborted._tag === "Failure" && aborted.cause._tag).toBe("Interrupt")
  })
})
