/**
 * The two strings to sign of the Merchant Payment Connect signature scheme (spec 5.3 and 5.5).
 * Free of `effect` so that signing code pulls in nothing else.
 *
 * @since 0.1.0
 */
import { utf8Length, utf8Write } from "./internal/utf8.js"

/**
 * What a merchant request's string to sign is made of (spec 5.3).
 *
 * @example
 * ```ts
 * import { Canonical } from "@pc/core"
 *
 * const input: Canonical.RequestSigningInput = {
 *   method: "POST",
 *   path: "/openapi/v2/order/create",
 *   appKey: "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4",
 *   timestamp: Date.now(),
 *   body: JSON.stringify({ orderId: "M-1001", amount: "10.00", currency: "USD" })
 * }
 * const stringToSign = Canonical.requestStringToSign(input)
 * ```
 */
export interface RequestSigningInput {
  /** The HTTP method as sent, upper case, e.g. `"POST"`. */
  readonly method: string
  /** The request path, e.g. `"/openapi/v2/order/create"` (no scheme, host or query). */
  readonly path: string
  /** The merchant appKey sent in `X-R-AK`. */
  readonly appKey: string
  /** The same millisecond timestamp sent in `X-R-TS`. */
  readonly timestamp: number | string
  /** The exact body text that is sent: compact JSON, byte for byte. Empty for a request without a body. */
  readonly body: string
}

/**
 * What a callback's string to sign is made of (spec 5.5).
 *
 * @example
 * ```ts
 * import { Canonical } from "@pc/core"
 *
 * const input: Canonical.CallbackSigningInput = {
 *   appKey: "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4",
 *   timestamp: "1763712005000", // X-R-Ts as received
 *   body: rawBody // the body text exactly as received, never re-serialised
 * }
 * const stringToVerify = Canonical.callbackStringToSign(input)
 * ```
 */
export interface CallbackSigningInput {
  /** The merchant appKey the callback is for. */
  readonly appKey: string
  /** The millisecond timestamp sent in `X-R-Ts`. */
  readonly timestamp: number | string
  /** The exact body text as sent or received. */
  readonly body: string
}

/**
 * Builds the string a merchant signs for a request:
 * `METHOD + " " + path + "\n" + appKey + "." + timestamp + "." + body`.
 *
 * The method is taken as given: the spec signs the upper-case method, and a lower-case one is a
 * different string (so a verifier must not "fix" it).
 *
 * @example
 * ```ts
 * import { Canonical } from "@pc/core"
 *
 * Canonical.requestStringToSign({
 *   method: "POST",
 *   path: "/openapi/v2/order/create",
 *   appKey: "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4",
 *   timestamp: 1763712000000,
 *   body: '{"orderId":"M-1001","amount":"10.00","currency":"USD"}'
 * })
 * // 'POST /openapi/v2/order/create\n78e6ac0e-….1763712000000.{"orderId":"M-1001",…}'
 * ```
 */
export const requestStringToSign = (input: RequestSigningInput): string =>
  input.method + " " + input.path + "\n" + input.appKey + "." + input.timestamp + "." + input.body

/**
 * Builds the string the service signs for a callback: `appKey + "." + timestamp + "." + body`,
 * with no method and no path.
 *
 * @example
 * ```ts
 * import { Canonical } from "@pc/core"
 *
 * Canonical.callbackStringToSign({ appKey: "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4", timestamp: 1763712005000, body: "{}" })
 * // "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4.1763712005000.{}"
 * ```
 */
export const callbackStringToSign = (input: CallbackSigningInput): string =>
  input.appKey + "." + input.timestamp + "." + input.body

/**
 * The bytes a merchant signs for a request whose body is already bytes: the UTF-8 of
 * `METHOD + " " + path + "\n" + appKey + "." + timestamp + "."` followed by the body bytes
 * untouched, so what is signed is exactly what is sent.
 *
 * @example
 * ```ts
 * import { Canonical } from "@pc/core"
 *
 * const body = new Uint8Array([123, 125]) // "{}"
 * Canonical.requestBytesToSign("POST", "/openapi/v2/order/create", "7e57c0de-0000-4000-8000-000000000001", 1763712000000, body)
 * ```
 */
export const requestBytesToSign = (
  method: string,
  path: string,
  appKey: string,
  timestamp: number | string,
  body: Uint8Array
): Uint8Array => prefixed(method + " " + path + "\n" + appKey + "." + timestamp + ".", body)

const prefixed = (prefix: string, body: Uint8Array): Uint8Array => {
  const out = new Uint8Array(utf8Length(prefix) + body.length)
  out.set(body, utf8Write(prefix, out, 0))
  return out
}

/**
 * The bytes to verify for a callback whose body arrived as raw bytes: the UTF-8 of
 * `appKey + "." + timestamp + "."` followed by the body bytes untouched. Use it when the body
 * may not be valid UTF-8, so that no decode and re-encode can change what was signed.
 *
 * @example
 * ```ts
 * import { Canonical } from "@pc/core"
 *
 * const raw = new Uint8Array([123, 125]) // "{}"
 * Canonical.callbackBytesToSign("78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4", "1763712005000", raw)
 * ```
 */
export const callbackBytesToSign = (appKey: string, timestamp: number | string, body: Uint8Array): Uint8Array =>
  prefixed(appKey + "." + timestamp + ".", body)
