// The one mock fixture of the tests: a real mock server (`@pc/mock-server`, its built package, as a
// merchant's suite gets it) in this process on 127.0.0.1, a free port and an in-memory database,
// callbacks retried from 200 ms, and its developer menu (/dev, CONTRACT.md) read as the tests need.
import { defaults, type MockConfigShape, type Started, start } from "@pc/mock-server"
import * as LogLevel from "effect/LogLevel"
import { until } from "./Poll.js"

export { TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem } from "@pc/mock-server"

/** A mock the fixture started: its facts and `close`. */
export type Mock = Started & { readonly close: () => Promise<void> }

/** How the fixture runs the mock beyond its configuration. */
export interface MockFixtureOptions {
  /**
   * Receives every log line (logfmt, all levels) instead of the console, for tests that read what
   * is logged. Without it the mock is silent unless MOCK_LOGS is set.
   */
  readonly logSink?: (line: string) => void
  /** Serve create-order by its fast path (default true); `false` leaves it to the HttpApi app. */
  readonly createOrderFastPath?: boolean
}

/**
 * Starts a mock on a free port of 127.0.0.1 with an in-memory database and callbacks retried from
 * 200 ms, `overrides` applied last. Rejects as `start` does (ConfigError for a refused setting).
 *
 * @example
 * ```ts
 * const mock = await startMock({ environment: "production" })
 * await fetch(`${mock.url}/dev/platform-keys`)
 * await mock.close()
 * ```
 */
export const startMock = (overrides: Partial<MockConfigShape> = {}, options: MockFixtureOptions = {}): Promise<Mock> =>
  start(
    { ...defaults, port: 0, db: ":memory:", callbackBackoffMs: 200, ...overrides },
    {
      logLevel: options.logSink !== undefined ? LogLevel.All : process.env.MOCK_LOGS ? LogLevel.Info : LogLevel.None,
      ...(options.logSink === undefined ? {} : { logSink: options.logSink }),
      ...(options.createOrderFastPath === undefined ? {} : { createOrderFastPath: options.createOrderFastPath })
    }
  )

/** The envelope every mock answer carries. */
export interface Envelope<T> {
  readonly code: string
  readonly msg: string | null
  readonly data: T | null
}

/**
 * Calls a /dev route; resolves with the HTTP status and the envelope.
 *
 * @example
 * ```ts
 * const { status, envelope } = await dev(mock, "GET", "/dev/orders/PC1")
 * ```
 */
export const dev = async <T>(
  mock: Pick<Mock, "url">,
  method: "GET" | "POST" | "PUT",
  path: string,
  body?: unknown
): Promise<{ readonly status: number; readonly envelope: Envelope<T> }> => {
  const response = await fetch(`${mock.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  })
  return { status: response.status, envelope: (await response.json()) as Envelope<T> }
}

/**
 * Calls a /dev route that must succeed; resolves with its data, rejects naming the code otherwise.
 *
 * @example
 * ```ts
 * const order = await devData<OrderView>(mock, "POST", `/dev/orders/${orderSn}/pay`)
 * ```
 */
export const devData = async <T>(
  mock: Pick<Mock, "url">,
  method: "GET" | "POST" | "PUT",
  path: string,
  body?: unknown
): Promise<T> => {
  const { status, envelope } = await dev<T>(mock, method, path, body)
  if (envelope.code !== "SUCCESS" || envelope.data === null) {
    throw new Error(`${method} ${path} answered HTTP ${status} ${envelope.code}: ${envelope.msg}`)
  }
  return envelope.data
}

/** A platform key as `GET /dev/platform-keys` publishes it. */
export interface PlatformKeyView {
  readonly environment: string
  readonly version: number
  readonly publicKeyPem: string
  readonly status: "current" | "published" | "retired"
}

/** An order as `GET /dev/orders/{orderSn}` shows it. */
export interface OrderView {
  readonly orderSn: string
  readonly outerOrder: string
  readonly amount: string
  readonly currency: string
  readonly status: "CREATED" | "PAID" | "FAILED" | "EXPIRED"
}

/** A delivery as `GET /dev/callbacks` shows it. */
export interface DeliveryView {
  readonly id: string
  readonly orderSn: string
  readonly eventId: string
  readonly eventType: string
  readonly status: "pending" | "delivered" | "failed"
  readonly attemptCount: number
  readonly attempts: ReadonlyArray<{
    readonly httpStatus: number | null
    readonly error: string | null
    readonly keyVersion: number | null
  }>
}

/**
 * The platform public keys of the mock's environment, PEM by version (`GET /dev/platform-keys`).
 *
 * @example
 * ```ts
 * const pems = await platformKeyPems(mock)
 * ```
 */
export const platformKeyPems = async (mock: Pick<Mock, "url">): Promise<Record<number, string>> =>
  Object.fromEntries(
    (await devData<ReadonlyArray<PlatformKeyView>>(mock, "GET", "/dev/platform-keys")).map((key) => [
      key.version,
      key.publicKeyPem
    ])
  )

/**
 * Points a merchant's callbacks at `notifyUrl`.
 *
 * @example
 * ```ts
 * await setNotifyUrl(mock, TEST_MERCHANT_APP_KEY, receiver.url)
 * ```
 */
export const setNotifyUrl = (
  mock: Pick<Mock, "url">,
  appKey: string,
  notifyUrl: string
): Promise<{ readonly notifyUrl: string }> =>
  devData<{ readonly notifyUrl: string }>(mock, "PUT", `/dev/merchants/${appKey}/notify-url`, { notifyUrl })

/**
 * Moves an order to PAID, which queues its `order.paid` callback.
 *
 * @example
 * ```ts
 * await pay(mock, created.orderSn)
 * ```
 */
export const pay = (mock: Pick<Mock, "url">, orderSn: string): Promise<OrderView> =>
  devData<OrderView>(mock, "POST", `/dev/orders/${encodeURIComponent(orderSn)}/pay`)

/**
 * The deliveries of an order with their finished attempts. The mock records an attempt before it
 * sends it (CONTRACT.md), with an error saying no outcome is recorded yet; tests judge attempts by
 * their outcome, so one still in flight is left out.
 *
 * @example
 * ```ts
 * const [delivery] = await deliveriesOf(mock, orderSn)
 * ```
 */
export const deliveriesOf = async (mock: Pick<Mock, "url">, orderSn: string): Promise<ReadonlyArray<DeliveryView>> =>
  (
    await devData<ReadonlyArray<DeliveryView>>(mock, "GET", `/dev/callbacks?orderSn=${encodeURIComponent(orderSn)}`)
  ).map((delivery) => ({
    ...delivery,
    attempts: delivery.attempts.filter(
      (attempt) => attempt.httpStatus !== null || !attempt.error?.startsWith("no outcome recorded")
    )
  }))

/**
 * Waits (30 s at most) until the single delivery of `orderSn` satisfies `accept`, and resolves with it.
 *
 * @example
 * ```ts
 * await waitForDelivery(mock, orderSn, (d) => d.status === "delivered", "delivered")
 * ```
 */
export const waitForDelivery = (
  mock: Pick<Mock, "url">,
  orderSn: string,
  accept: (delivery: DeliveryView) => boolean,
  what: string
): Promise<DeliveryView> =>
  until(
    async () => {
      const [delivery] = await deliveriesOf(mock, orderSn)
      return delivery !== undefined && accept(delivery) ? delivery : undefined
    },
    `the delivery of ${orderSn} to be ${what}`,
    { timeoutMs: 30_000, intervalMs: 20 }
  )
