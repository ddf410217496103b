/**
 * The four authentication headers of a request (spec 5.3) for exact bytes: what the client's
 * request mapper sets on every attempt, offered alone for tools that send the request themselves
 * (`pc sign --curl`, a gateway, a test).
 *
 * @since 0.1.0
 */
import * as Canonical from "@pc/core/Canonical"
import type * as Crypto from "@pc/core/Crypto"
import * as Headers from "@pc/core/Headers"
import type * as KeyRing from "@pc/core/KeyRing"

/**
 * What is signed: the method and path as sent, the merchant appKey, the timestamp (Unix epoch
 * milliseconds) and the body bytes exactly as sent.
 *
 * @example
 * ```ts
 * import type { RequestSigning } from "@pc/client"
 *
 * const input: RequestSigning.RequestToSign = {
 *   method: "POST", path: "/openapi/v2/order/create", appKey, timestamp: Date.now(), body
 * }
 * ```
 */
export interface RequestToSign {
  readonly method: string
  readonly path: string
  readonly appKey: string
  readonly timestamp: number
  readonly body: Uint8Array
}

/**
 * The headers by their names on the wire: `X-R-AK`, `X-R-TS`, `X-R-KEY-VERSION`, `X-R-Signature`.
 *
 * @example
 * ```ts
 * import type { RequestSigning } from "@pc/client"
 *
 * const send = (headers: RequestSigning.SignedHeaders) => fetch(url, { method: "POST", headers, body })
 * ```
 */
export type SignedHeaders = {
  readonly [K in keyof typeof Headers.RequestHeaders as (typeof Headers.RequestHeaders)[K]]: string
}

/**
 * Signs a request with the ring's current key and returns its four headers. With
 * `{ offThread: true }` the key signs with its `signOffThread` when it has one (`@pc/crypto-node`'s
 * keys do: libuv's thread pool), for a caller with other work waiting on its thread; the headers
 * are the same.
 *
 * Rejects with whatever the signer rejects with (a key the runtime cannot use).
 *
 * @example
 * ```ts
 * import { RequestSigning } from "@pc/client"
 * import { KeyRing } from "@pc/core"
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const ring = await KeyRing.importSigners(NodeCrypto, { 1: privateKeyPem })
 * const body = new TextEncoder().encode('{"orderId":"M-1","amount":"10.00","currency":"USD"}')
 * const headers = await RequestSigning.sign(ring, {
 *   method: "POST", path: "/openapi/v2/order/create", appKey, timestamp: Date.now(), body
 * })
 * ```
 */
export const sign = async (
  ring: KeyRing.KeyRing<Crypto.Signer>,
  input: RequestToSign,
  options?: { readonly offThread?: boolean | undefined }
): Promise<SignedHeaders> => {
  // The exact bytes that are sent: the prefix as UTF-8, then the body untouched (spec 5.3).
  const message = Canonical.requestBytesToSign(
    input.method.toUpperCase(),
    input.path,
    input.appKey,
    input.timestamp,
    input.body
  )
  const key = ring.currentKey
  const signature = await (options?.offThread === true && key.signOffThread !== undefined
    ? key.signOffThread(message)
    : key.sign(message))
  return {
    [Headers.RequestHeaders.appKey]: input.appKey,
    [Headers.RequestHeaders.timestamp]: String(input.timestamp),
    [Headers.RequestHeaders.keyVersion]: String(ring.current),
    [Headers.RequestHeaders.signature]: signature
  } as SignedHeaders
}
