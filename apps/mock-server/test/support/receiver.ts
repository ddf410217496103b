// The merchant's side of callback verification (spec 5.5) for what a receiver (@pc/test-support)
// got: platform keys from the developer menu, the signed string `appKey.X-R-Ts.rawBody`, the key
// chosen by X-R-Key-Version.
import { Canonical, type Crypto, Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { NodeCrypto } from "@pc/crypto-node"
import { Effect, Schema } from "effect"
import type { ReceivedRequest } from "@pc/test-support"
import type { Delivery, PlatformKey } from "../../src/api/Schemas.js"
import * as MockClient from "../../src/api/MockClient.js"

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
