// A real merchant callback receiver on 127.0.0.1 (node:http, free port), and the merchant's side of
// callback verification (spec 5.5): platform keys from the developer menu, the signed string
// `appKey.X-R-Ts.rawBody`, the key chosen by X-R-Key-Version.
import { Canonical, type Crypto, Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { NodeCrypto } from "@pc/crypto-node"
import { Effect, Schema } from "effect"
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Delivery, PlatformKey } from "../../src/api/Schemas.js"
import * as MockClient from "../../src/api/MockClient.js"

/** One request the receiver got, exactly as it arrived. */
export interface ReceivedRequest {
  /** Date.now() when the request's headers arrived. */
  readonly receivedAtMs: number
  /** performance.now() when the request's headers arrived (for latency). */
  readonly receivedAtPerf: number
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  /** The body bytes untouched. */
  readonly rawBody: Uint8Array
  /** The body as UTF-8 text. */
  readonly body: string
}

/**
 * What to answer: an HTTP status (with a short text body), never answer at all, or a status after
 * `delayMs`, with `body` as its body, left open (never ended) when `keepOpen`.
 */
export type Answer =
  | number
  | "hang"
  | { readonly status: number; readonly delayMs?: number; readonly body?: string; readonly keepOpen?: boolean }

export interface Receiver {
  /** The notifyUrl to give the mock. */
  readonly url: string
  /** Every request so far, in arrival order. */
  readonly received: ReadonlyArray<ReceivedRequest>
  /** Sets how the receiver answers the requests from now on (`n` is the 0-based request number). */
  answer(answer: Answer | ((request: ReceivedRequest, n: number) => Answer)): void
  /** Resolves once `count` requests matching `predicate` arrived, with those requests; rejects after `timeoutMs`. */
  waitFor(
    count: number,
    predicate?: (request: ReceivedRequest) => boolean,
    timeoutMs?: number
  ): Promise<ReadonlyArray<ReceivedRequest>>
  close(): Promise<void>
}

/** Starts a receiver on 127.0.0.1, port 0. It answers 200 until told otherwise. */
export const startReceiver = async (initial: Answer = 200): Promise<Receiver> => {
  const received: Array<ReceivedRequest> = []
  const hanging = new Set<ServerResponse>()
  let decide: (request: ReceivedRequest, n: number) => Answer = () => initial
  const server = createServer((req, res) => {
    const receivedAtMs = Date.now()
    const receivedAtPerf = performance.now()
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const raw = Buffer.concat(chunks)
      const request: ReceivedRequest = {
        receivedAtMs,
        receivedAtPerf,
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        rawBody: new Uint8Array(raw),
        body: raw.toString("utf8")
      }
      const n = received.length
      received.push(request)
      const answer = decide(request, n)
      if (answer === "hang") {
        hanging.add(res)
        res.on("close", () => hanging.delete(res))
        return
      }
      const { status, delayMs = 0, body, keepOpen = false } = typeof answer === "number" ? { status: answer } : answer
      const write = () => {
        res.writeHead(status, { "content-type": "text/plain" })
        const text = body ?? (status >= 200 && status < 300 ? "ok" : `receiver says ${status}`)
        if (!keepOpen) return res.end(text)
        hanging.add(res)
        res.on("close", () => hanging.delete(res))
        res.write(text)
      }
      if (delayMs === 0) return write()
      hanging.add(res)
      res.on("close", () => hanging.delete(res))
      setTimeout(() => {
        if (!res.destroyed) write()
      }, delayMs)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    received,
    answer: (answer) => {
      decide = typeof answer === "function" ? answer : () => answer
    },
    waitFor: (count, predicate = () => true, timeoutMs = 10_000) =>
      waitUntil(
        () => {
          const matching = received.filter(predicate)
          return matching.length >= count ? matching : undefined
        },
        { timeoutMs, what: `${count} callback request(s) at the receiver (got ${received.length} in all)` }
      ),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/**
 * Polls `probe` every `intervalMs` until it returns something other than `undefined`, and resolves
 * with that; rejects after `timeoutMs` naming `what`.
 */
export const waitUntil = async <T>(
  probe: () => T | undefined | Promise<T | undefined>,
  options: { readonly timeoutMs?: number; readonly intervalMs?: number; readonly what?: string } = {}
): Promise<T> => {
  const timeoutMs = options.timeoutMs ?? 10_000
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? "a condition"}`)
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 10))
  }
}

/** A platform key as `GET /dev/platform-keys` publishes it (typed by the mock's own Schema). */
export type PublishedPlatformKey = typeof PlatformKey.Type

/** The environment's published platform keys, through the typed client. */
export const fetchPlatformKeys = (baseUrl: string): Promise<ReadonlyArray<PublishedPlatformKey>> =>
  MockClient.run(baseUrl, (client) => Effect.map(client.dev.listPlatformKeys(), (answer) => answer.data))

/** The merchant's key ring for callbacks: platform public keys by version, imported once. */
export const platformVerifiers = async (baseUrl: string): Promise<ReadonlyMap<number, Crypto.Verifier>> => {
  const keys = await fetchPlatformKeys(baseUrl)
  const entries = await Promise.all(
    keys.map(async (key) => [key.version, await NodeCrypto.importPublicKey(key.publicKeyPem)] as const)
  )
  return new Map(entries)
}

/** The outcome of verifying a received callback as a merchant would. */
export type Verification =
  | {
      readonly ok: true
      readonly keyVersion: number
      readonly timestamp: string
      readonly event: Wire.CallbackEvent
    }
  | { readonly ok: false; readonly reason: string }

const decodeEvent = Schema.decodeUnknownSync(Wire.CallbackEvent)

/**
 * Verifies a callback as spec 5.5 says: read X-R-Ts, X-R-Key-Version and X-R-Signature; build
 * `appKey.X-R-Ts.body` from the body bytes exactly as received and the timestamp from the header;
 * pick the platform key by X-R-Key-Version; verify SHA256withRSA; then decode the body.
 */
export const verifyCallback = async (
  request: ReceivedRequest,
  appKey: string,
  keys: ReadonlyMap<number, Crypto.Verifier>
): Promise<Verification> => {
  const parsed = Headers.parseCallback(request.headers)
  if (!parsed.ok) return { ok: false, reason: parsed.error.message }
  const timestamp = Headers.get(request.headers, Headers.CallbackHeaders.timestamp)!
  const keyVersion = Number(parsed.headers.keyVersion)
  const key = keys.get(keyVersion)
  if (key === undefined) return { ok: false, reason: `no platform key version ${keyVersion}` }
  const valid = await key.verify(
    Canonical.callbackBytesToSign(appKey, timestamp, request.rawBody),
    parsed.headers.signature
  )
  if (!valid) return { ok: false, reason: `signature not valid with platform key ${keyVersion}` }
  return { ok: true, keyVersion, timestamp, event: decodeEvent(JSON.parse(request.body)) }
}

/** Verifies and throws on failure: the decoded event with its key version and timestamp. */
export const verifiedEvent = async (
  request: ReceivedRequest,
  appKey: string,
  keys: ReadonlyMap<number, Crypto.Verifier>
) => {
  const result = await verifyCallback(request, appKey, keys)
  if (!result.ok) throw new Error(`callback did not verify: ${result.reason}`)
  return result
}

/** The body's eventId, without verifying (to match requests to deliveries). */
export const eventIdOf = (request: ReceivedRequest): string | undefined => {
  try {
    const value: unknown = JSON.parse(request.body)
    return typeof value === "object" && value !== null && "eventId" in value && typeof value.eventId === "string"
      ? value.eventId
      : undefined
  } catch {
    return undefined
  }
}

/** The body's orderSn, without verifying. */
export const orderSnOf = (request: ReceivedRequest): string | undefined => {
  try {
    const value: unknown = JSON.parse(request.body)
    return typeof value === "object" && value !== null && "orderSn" in value && typeof value.orderSn === "string"
      ? value.orderSn
      : undefined
  } catch {
    return undefined
  }
}

/** A delivery as `GET /dev/callbacks` shows it (typed by the mock's own Schema). */
export type DeliveryView = typeof Delivery.Type

/** The deliveries of one order, through the typed client. */
export const deliveriesOf = (baseUrl: string, orderSn: string): Promise<ReadonlyArray<DeliveryView>> =>
  MockClient.run(baseUrl, (client) =>
    Effect.map(client.dev.listCallbacks({ urlParams: { orderSn } }), (answer) => answer.data)
  )
