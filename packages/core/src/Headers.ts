/**
 * Header names of both directions (spec 5.2, 5.5) and strict parsing of them into a typed result
 * or a typed reason. Names are matched case-insensitively, as HTTP header names are.
 *
 * @since 0.1.0
 */
import * as Base64 from "./Base64.js"
import * as KeyVersion from "./KeyVersion.js"
import * as Timestamp from "./Timestamp.js"

/**
 * Headers of a merchant request to the service, spelled as the spec spells them.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const headers = {
 *   [Headers.RequestHeaders.appKey]: "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4",
 *   [Headers.RequestHeaders.timestamp]: String(timestamp),
 *   [Headers.RequestHeaders.keyVersion]: "1",
 *   [Headers.RequestHeaders.signature]: signature
 * }
 * ```
 */
export const RequestHeaders = {
  appKey: "X-R-AK",
  timestamp: "X-R-TS",
  keyVersion: "X-R-KEY-VERSION",
  signature: "X-R-Signature"
} as const

/**
 * Headers of a callback from the service to the merchant, spelled as the spec spells them.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const signature = Headers.get(request.headers, Headers.CallbackHeaders.signature) // any case matches
 * ```
 */
export const CallbackHeaders = {
  timestamp: "X-R-Ts",
  keyVersion: "X-R-Key-Version",
  signature: "X-R-Signature"
} as const

/**
 * The sandbox's answer header: what production would have decided of the signature (`valid`, `invalid`, `missing`).
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const response = await fetch(request)
 * const check = response.headers.get(Headers.SIGNATURE_CHECK) // sandbox only: "valid", "invalid" or "missing"
 * if (check === "invalid") console.warn("production would refuse this signature")
 * ```
 */
export const SIGNATURE_CHECK = "X-R-Signature-Check"

/**
 * Carried by every response of the service, and logged with every line about that request.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const response = await fetch(request)
 * console.log("create order answered", response.status, response.headers.get(Headers.REQUEST_ID))
 * ```
 */
export const REQUEST_ID = "X-Request-Id"

/**
 * Where headers are read from: a Fetch `Headers` (or anything with `get`), a `Map`, or a plain
 * record such as Node's `IncomingHttpHeaders`, whose keys may be in any case.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const source: Headers.HeaderSource = new Map([["X-R-Ts", "1763712005000"]])
 * Headers.get(source, "x-r-ts") // "1763712005000"
 * ```
 */
export type HeaderSource =
  | { readonly get: (name: string) => string | null | undefined }
  | ReadonlyMap<string, string | ReadonlyArray<string> | undefined>
  | { readonly [name: string]: string | ReadonlyArray<string> | undefined }

/**
 * Why a header was refused.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const result = Headers.parseCallback({ "x-r-ts": "1763712005000" })
 * const reason: Headers.HeaderErrorReason | undefined = result.ok ? undefined : result.error.reason // "Missing"
 * ```
 */
export type HeaderErrorReason = "Missing" | "Duplicate" | "Malformed"

/**
 * A refused header: which one, why, and a message fit for an error envelope.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const result = Headers.parseRequest({ "x-r-ak": "merchant-1" }, { signature: "optional" })
 * if (!result.ok) {
 *   const error: Headers.HeaderError = result.error
 *   console.log(error.header, error.message) // "X-R-AK" "malformed header X-R-AK: the appKey is a UUID"
 * }
 * ```
 */
export interface HeaderError {
  readonly _tag: "HeaderError"
  readonly header: string
  readonly reason: HeaderErrorReason
  readonly message: string
  /** For a malformed signature: what is wrong with its Base64. */
  readonly base64?: Base64.Base64DecodeErrorReason
}

/** A read header: its single value, absent, or sent more than once. */
type Lookup = string | undefined | { readonly duplicate: true }

const DUPLICATE = { duplicate: true } as const

// A value that is not text (a number, an object) where a header should be: malformed in every header.
const NOT_TEXT = "\u0000"

/**
 * Reads one header from any {@link HeaderSource}, ignoring case. A header sent twice (an array in
 * a record, two keys differing in case, or a Fetch `Headers` that joined the values with ", ") is
 * reported as such, never silently joined or truncated. Own keys only: a polluted prototype cannot
 * inject a header. Never throws, whatever the source holds.
 */
const lookup = (source: HeaderSource, name: string): Lookup => {
  if (source === null || typeof source !== "object") return undefined
  if (source instanceof Map) return fromEntries(source.entries(), name)
  if (typeof source.get === "function") {
    let value: unknown
    try {
      value = (source as { readonly get: (name: string) => unknown }).get(name)
    } catch {
      return undefined
    }
    // None of these headers can hold a comma: one means Fetch joined a repeated header.
    return typeof value === "string" ? (value.includes(",") ? DUPLICATE : value) : undefined
  }
  // A record (Node's IncomingHttpHeaders) is read key by key, without an entry per key: a server
  // reads four headers of every request this way.
  const record = source as { readonly [name: string]: unknown }
  const lower = name.toLowerCase()
  const keys = Object.keys(record)
  let found: Lookup
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    if (key.length !== lower.length || key.toLowerCase() !== lower) continue
    found = withValue(found, record[key])
    if (found === DUPLICATE) return found
  }
  return found
}

const fromEntries = (entries: Iterable<readonly [unknown, unknown]>, name: string): Lookup => {
  const lower = name.toLowerCase()
  let found: Lookup
  for (const [key, value] of entries) {
    if (typeof key !== "string" || key.length !== lower.length || key.toLowerCase() !== lower) continue
    found = withValue(found, value)
    if (found === DUPLICATE) return found
  }
  return found
}

/** What a header reads as once `value` is seen under its name, after what was `found` before. */
const withValue = (found: Lookup, value: unknown): Lookup => {
  if (value === undefined || value === null) return found
  if (found !== undefined) return DUPLICATE
  if (typeof value === "string") return value.includes(",") ? DUPLICATE : value
  if (Array.isArray(value)) {
    if (value.length > 1) return DUPLICATE
    return value.length === 1 ? (typeof value[0] === "string" ? value[0] : NOT_TEXT) : found
  }
  return NOT_TEXT
}

/**
 * Reads one header by name, case-insensitively, from a Fetch `Headers` or a plain record.
 * Returns `undefined` when it is absent or sent more than once.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * Headers.get({ "x-r-ak": "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4" }, "X-R-AK") // "78e6ac0e-…"
 * ```
 */
export const get = (source: HeaderSource, name: string): string | undefined => {
  const value = lookup(source, name)
  return typeof value === "string" ? value : undefined
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * Tells whether a text has the appKey's form: a UUID (spec 5.1).
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * Headers.isAppKey("7e57c0de-0000-4000-8000-000000000001") // true
 * Headers.isAppKey("merchant-1") // false
 * ```
 */
export const isAppKey = (text: string): boolean => UUID.test(text)

const error = (
  header: string,
  reason: HeaderErrorReason,
  detail: string,
  base64?: Base64.Base64DecodeErrorReason
): { readonly ok: false; readonly error: HeaderError } => {
  const message =
    reason === "Missing"
      ? `missing header ${header}`
      : reason === "Duplicate"
        ? `header ${header} is sent more than once`
        : `malformed header ${header}: ${detail}`
  return {
    ok: false,
    error:
      base64 === undefined
        ? { _tag: "HeaderError", header, reason, message }
        : { _tag: "HeaderError", header, reason, message, base64 }
  }
}

const required = (
  source: HeaderSource,
  header: string
): { readonly ok: true; readonly value: string } | { readonly ok: false; readonly error: HeaderError } => {
  const value = lookup(source, header)
  if (value === undefined || value === "") return error(header, "Missing", "")
  if (typeof value !== "string") return error(header, "Duplicate", "")
  return { ok: true, value }
}

/**
 * The authentication headers of a merchant request, parsed.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const result = Headers.parseRequest(request.headers, { signature: "required" })
 * if (result.ok) {
 *   const { appKey, timestamp, keyVersion, signature }: Headers.RequestAuthHeaders = result.headers
 * }
 * ```
 */
export interface RequestAuthHeaders {
  readonly appKey: string
  readonly timestamp: number
  readonly keyVersion: KeyVersion.KeyVersion
  /** The decoded signature bytes; absent only where the signature was optional and not sent. */
  readonly signature: Uint8Array | undefined
}

/**
 * The result of {@link parseRequest}: the parsed headers, or the first refused one.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const result: Headers.RequestHeadersResult = Headers.parseRequest(request.headers, { signature: "optional" })
 * const appKey = result.ok ? result.headers.appKey : undefined
 * ```
 */
export type RequestHeadersResult =
  | { readonly ok: true; readonly headers: RequestAuthHeaders }
  | { readonly ok: false; readonly error: HeaderError }

/**
 * Parses a merchant request's `X-R-AK` (UUID), `X-R-TS` (integer milliseconds),
 * `X-R-KEY-VERSION` (natural number) and `X-R-Signature` (strict standard Base64), in that order,
 * stopping at the first refused header.
 *
 * The signature is required unless `options.signature` is `"optional"` (sandbox, or a request
 * without a body). A header that is present but malformed is always refused.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const result = Headers.parseRequest(request.headers, { signature: "required" })
 * if (!result.ok) console.log(result.error.message) // "missing header X-R-Signature"
 * ```
 */
export const parseRequest = (
  source: HeaderSource,
  options: { readonly signature: "required" | "optional" }
): RequestHeadersResult => {
  const appKey = required(source, RequestHeaders.appKey)
  if (!appKey.ok) return appKey
  if (!UUID.test(appKey.value)) return error(RequestHeaders.appKey, "Malformed", "the appKey is a UUID")
  const ts = required(source, RequestHeaders.timestamp)
  if (!ts.ok) return ts
  const timestamp = Timestamp.parse(ts.value)
  if (timestamp === undefined) {
    return error(RequestHeaders.timestamp, "Malformed", "expected Unix epoch milliseconds as integer text")
  }
  const kv = required(source, RequestHeaders.keyVersion)
  if (!kv.ok) return kv
  const keyVersion = KeyVersion.parse(kv.value)
  if (keyVersion === undefined) {
    return error(RequestHeaders.keyVersion, "Malformed", "expected a natural number (1, 2, 3, ...)")
  }
  const signature = parseSignature(source, RequestHeaders.signature, options.signature)
  if (!signature.ok) return signature
  return { ok: true, headers: { appKey: appKey.value, timestamp, keyVersion, signature: signature.bytes } }
}

const parseSignature = (
  source: HeaderSource,
  header: string,
  presence: "required" | "optional"
):
  | { readonly ok: true; readonly bytes: Uint8Array | undefined }
  | { readonly ok: false; readonly error: HeaderError } => {
  const raw = lookup(source, header)
  if (raw === undefined || raw === "") {
    return presence === "optional" ? { ok: true, bytes: undefined } : error(header, "Missing", "")
  }
  if (typeof raw !== "string") return error(header, "Duplicate", "")
  const decoded = Base64.decode(raw)
  if (!decoded.ok) return error(header, "Malformed", decoded.error.message, decoded.error.reason)
  return { ok: true, bytes: decoded.bytes }
}

/**
 * The signature headers of a callback, parsed.
 *
 * @example
 * ```ts
 * import { Headers, Timestamp } from "@pc/core"
 *
 * const result = Headers.parseCallback(request.headers)
 * if (result.ok) {
 *   const headers: Headers.CallbackAuthHeaders = result.headers
 *   Timestamp.checkWindow(headers.timestamp, Date.now())
 * }
 * ```
 */
export interface CallbackAuthHeaders {
  readonly timestamp: number
  readonly keyVersion: KeyVersion.KeyVersion
  readonly signature: Uint8Array
}

/**
 * The result of {@link parseCallback}: the parsed headers, or the first refused one.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const result: Headers.CallbackHeadersResult = Headers.parseCallback(request.headers)
 * if (!result.ok) console.warn(result.error.message) // e.g. "missing header X-R-Signature"
 * ```
 */
export type CallbackHeadersResult =
  | { readonly ok: true; readonly headers: CallbackAuthHeaders }
  | { readonly ok: false; readonly error: HeaderError }

/**
 * Parses a callback's `X-R-Ts`, `X-R-Key-Version` and `X-R-Signature` (all required), whatever
 * their case.
 *
 * @example
 * ```ts
 * import { Headers } from "@pc/core"
 *
 * const result = Headers.parseCallback({ "x-r-ts": "1763712005000", "x-r-key-version": "1", "x-r-signature": "…" })
 * ```
 */
export const parseCallback = (source: HeaderSource): CallbackHeadersResult => {
  const ts = required(source, CallbackHeaders.timestamp)
  if (!ts.ok) return ts
  const timestamp = Timestamp.parse(ts.value)
  if (timestamp === undefined) {
    return error(CallbackHeaders.timestamp, "Malformed", "expected Unix epoch milliseconds as integer text")
  }
  const kv = required(source, CallbackHeaders.keyVersion)
  if (!kv.ok) return kv
  const keyVersion = KeyVersion.parse(kv.value)
  if (keyVersion === undefined) {
    return error(CallbackHeaders.keyVersion, "Malformed", "expected a natural number (1, 2, 3, ...)")
  }
  const signature = parseSignature(source, CallbackHeaders.signature, "required")
  if (!signature.ok) return signature
  return { ok: true, headers: { timestamp, keyVersion, signature: signature.bytes! } }
}
