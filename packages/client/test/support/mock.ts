// The real mock server (apps/mock-server) started in this process on 127.0.0.1, a random port and an
// in-memory database, its developer menu (/dev, CONTRACT.md), and merchant callback receivers on
// node:http: what the client's end-to-end tests run against.
import type { Environment } from "@pc/core"
import { LogLevel } from "effect"
import { defaults, type MockConfigShape, start } from "@pc/mock-server"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export { TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem } from "@pc/mock-server"

export type Mock = Awaited<ReturnType<typeof start>>

/** A mock of `environment` on a free port with an in-memory database, callbacks retried from 200 ms, silent. */
export const startMock = (
  environment: Environment.Environment,
  overrides: Partial<MockConfigShape> = {}
): Promise<Mock> =>
  start(
    { ...defaults, environment, port: 0, db: ":memory:", callbackBackoffMs: 200, ...overrides },
    { logLevel: LogLevel.None }
  )

/** The envelope every mock answer carries. */
export interface Envelope<T> {
  readonly code: string
  readonly msg: string | null
  readonly data: T | null
}

/** Calls a /dev route; resolves with the HTTP status and the envelope. */
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

/** Calls a /dev route that must succeed; resolves with its data. */
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

/** The platform public keys of the mock's environment, PEM by version (`GET /dev/platform-keys`). */
export const platformKeyPems = async (mock: Pick<Mock, "url">): Promise<Record<number, string>> =>
  Object.fromEntries(
    (await devData<ReadonlyArray<PlatformKeyView>>(mock, "GET", "/dev/platform-keys")).map((key) => [
      key.version,
      key.publicKeyPem
    ])
  )

export const setNotifyUrl = (mock: Pick<Mock, "url">, appKey: string, notifyUrl: string) =>
  devData<{ readonly notifyUrl: string }>(mock, "PUT", `/dev/merchants/${appKey}/notify-url`, { notifyUrl })

/** Moves an order to PAID, which queues its `order.paid` callback. */
export const pay = (mock: Pick<Mock, "url">, orderSn: string) =>
  devData<OrderView>(mock, "POST", `/dev/orders/${encodeURIComponent(orderSn)}/pay`)

/**
 * The deliveries of an order with their finished attempts. The mock records an attempt before it
 * sends it (CONTRACT.md), with an error saying no outcome is recorded yet; these tests judge
 * attempts by their outcome, so one still in flight is left out.
 */
export const deliveriesOf = async (mock: Pick<Mock, "url">, orderSn: string) =>
  (
    await devData<ReadonlyArray<DeliveryView>>(mock, "GET", `/dev/callbacks?orderSn=${encodeURIComponent(orderSn)}`)
  ).map((delivery) => ({
    ...delivery,
    attempts: delivery.attempts.filter(
      (attempt) => attempt.httpStatus !== null || !attempt.error?.startsWith("no outcome recorded")
    )
  }))

/** Polls `probe` until it gives something other than `undefined`; rejects after `timeoutMs` naming `what`. */
export const waitUntil = async <T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000
): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Waits until the single delivery of `orderSn` satisfies `until`, and resolves with it. */
export const waitForDelivery = (
  mock: Pick<Mock, "url">,
  orderSn: string,
  until: (delivery: DeliveryView) => boolean,
  what: string
): Promise<DeliveryView> =>
  waitUntil(`the delivery of ${orderSn} to be ${what}`, async () => {
    const [delivery] = await deliveriesOf(mock, orderSn)
    return delivery !== undefined && until(delivery) ? delivery : undefined
  })

/** A merchant's callback endpoint: a node:http server on 127.0.0.1, a free port. */
export interface Receiver {
  /** The notifyUrl to give the mock. */
  readonly url: string
  close(): Promise<void>
}

export const startReceiver = async (
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>
): Promise<Receiver> => {
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
      res.end(`receiver failed: ${error instanceof Error ? error.message : String(error)}`)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** A port free on 127.0.0.1 right now (one helper for every test package). */
export { freePort } from "@pc/servers"

/** Reads a Node request's body to the end: the bytes exactly as sent. */
export const readRaw = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

/** A callback exactly as it arrived: its headers (lower case) and raw body. */
export interface CapturedCallback {
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
}

/** The single-valued headers of a Node request, for a Fetch `Request` or a replay. */
export const headersOf = (req: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") out[name] = value
    else if (Array.isArray(value)) out[name] = value.join(", ")
  }
  return out
}
