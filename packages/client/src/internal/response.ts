// Turns one HTTP answer into a create-order result or a typed error. The envelope's `code` decides
// (CONTRACT.md): a 200 carrying signError is a SignatureRejected, a 500 carrying paramError is an
// InvalidRequest. The HTTP status only matters when the body is not an envelope at all.
import { ErrorCode, Timestamp } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import {
  DuplicateOrder,
  InvalidRequest,
  type InvalidRequestCode,
  type PaymentClientError,
  RateLimited,
  ServerError,
  SignatureRejected,
  UnexpectedResponse
} from "../PaymentClientError.js"
import { parseRetryAfter } from "./retry.js"

/** What the retry loop needs to know of a failed attempt besides the error itself. */
export interface AttemptFailure {
  readonly error: PaymentClientError
  /** The server's Retry-After, in milliseconds from now, when it sent one. */
  readonly retryAfterMs: number | undefined
}

/** The parts of a response the classification reads; header names are lower case. */
export interface ResponseFacts {
  readonly status: number
  readonly headers: { readonly [name: string]: string | undefined }
  readonly text: string
}

const EXCERPT_LENGTH = 200

// A run of 100 or more Base64 characters: an RSA signature (344 characters for 2048 bits) or key
// material. A proxy's error page that echoes the request headers would otherwise put X-R-Signature
// into messages and logs; nothing the service says legitimately looks like this.
const BASE64_RUN = /[A-Za-z0-9+/=]{100,}/g

/** `text` with every long Base64 run replaced by `[redacted base64]`. */
export const redactBase64 = (text: string): string => text.replace(BASE64_RUN, "[redacted base64]")

/**
 * At most 200 characters of a body, whitespace collapsed and long Base64 runs redacted (before the
 * cut, so that no prefix of a signature survives it), for messages and logs.
 */
export const excerpt = (text: string): string => {
  const collapsed = redactBase64(text.replace(/\s+/g, " ").trim())
  return collapsed.length > EXCERPT_LENGTH ? `${collapsed.slice(0, EXCERPT_LENGTH - 1)}…` : collapsed
}

const KNOWN_FIELDS = ["orderId", "amount", "currency"] as const

/**
 * The field a `paramError` message names (CONTRACT.md: "msg names the field"). Tries the usual
 * shapes, `orderId must be ...`, `amount: ...`, `invalid field "currency"`, then any known field
 * named as a whole word.
 */
export const fieldFromMessage = (message: string | null): string | undefined => {
  if (message === null || message === "") return undefined
  const leading =
    /^\s*["'`]?([A-Za-z_][A-Za-z0-9_.]*)["'`]?\s*(?::|\bis\b|\bmust\b|\bhas\b|\bshould\b|\bwas\b|\bnot\b)/.exec(message)
  if (leading !== null && leading[1] !== undefined && !/^(body|request|the|a|an|field|parameter)$/i.test(leading[1])) {
    return leading[1]
  }
  const named = /\b(?:field|parameter|property|key)\s+["'`]?([A-Za-z_][A-Za-z0-9_.]*)/i.exec(message)
  if (named?.[1] !== undefined) return named[1]
  for (const field of KNOWN_FIELDS) {
    if (new RegExp(`\\b${field}\\b`).test(message)) return field
  }
  return undefined
}

const decodeEnvelope = Schema.decodeUnknownEither(Wire.AnyEnvelope)
const decodeResult = Schema.decodeUnknownEither(Wire.CreateOrderResult)

const parseEnvelope = (text: string): Wire.Envelope<unknown> | undefined => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return undefined
  }
  const decoded = decodeEnvelope(json)
  return Either.isRight(decoded) ? decoded.right : undefined
}

const minutes = Timestamp.WINDOW_MS / 60_000

/** The likely cause of a signError, from the server's message and the clock skew. */
const signatureHint = (
  serverMessage: string,
  keyVersion: number,
  localClockAheadMs: number | undefined
): string | undefined => {
  if (localClockAheadMs !== undefined && Math.abs(localClockAheadMs) > Timestamp.WINDOW_MS) {
    const seconds = Math.round(Math.abs(localClockAheadMs) / 1000)
    return (
      `this machine's clock is ${seconds} s ${localClockAheadMs > 0 ? "ahead of" : "behind"} the server's (its Date header), ` +
      `outside the ${minutes} minute window X-R-TS must lie in: synchronise the clock (NTP)`
    )
  }
  if (/timestamp|window|clock/i.test(serverMessage)) {
    return `X-R-TS must lie within ${minutes} minutes of the server's clock: synchronise this machine's clock (NTP)`
  }
  if (/key version|version/i.test(serverMessage)) {
    return (
      `key version ${keyVersion} is not an active key of this appKey: upload the public key first, ` +
      `then switch the current version (and keep the old one for 7 days)`
    )
  }
  if (/appkey|x-r-ak/i.test(serverMessage)) {
    return "check the appKey: it must be the one issued for this environment"
  }
  return (
    `check that the private key of version ${keyVersion} matches the public key uploaded as version ${keyVersion}, ` +
    `for this appKey and environment`
  )
}

const serverSuffix = (requestId: string | undefined) => (requestId === undefined ? "" : ` (request id ${requestId})`)

const INVALID_REQUEST_CODES: ReadonlySet<string> = new Set<InvalidRequestCode>([
  "paramError",
  "unsupportedMediaType",
  "payloadTooLarge",
  "notFound",
  "methodNotAllowed"
])

/**
 * Classifies one create-order answer. `nowMs` is the local clock when the answer arrived (for the
 * clock skew); `keyVersion` the version the request was signed with.
 */
export const classifyCreateOrder = (
  facts: ResponseFacts,
  context: {
    readonly nowMs: number
    readonly keyVersion: number
    readonly orderId: string
    /** The canonical amount and the currency this call asked for: what a `duplicateOrder` refused. */
    readonly amount: string
    readonly currency: string
  }
): Either.Either<Wire.CreateOrderResult, AttemptFailure> => {
  const requestId = facts.headers["x-request-id"]
  const retryAfterMs = parseRetryAfter(facts.headers["retry-after"], context.nowMs, facts.headers.date)
  const contentType = facts.headers["content-type"]
  const envelope = parseEnvelope(facts.text)
  const fail = (error: PaymentClientError) => Either.left<AttemptFailure>({ error, retryAfterMs })
  const unexpected = (why: string) =>
    fail(
      new UnexpectedResponse({
        message: `unexpected answer from the service (HTTP ${facts.status}): ${why}${serverSuffix(requestId)}`,
        status: facts.status,
        contentType,
        excerpt: excerpt(facts.text),
        requestId
      })
    )

  if (envelope === undefined) {
    const shown = excerpt(facts.text)
    return unexpected(
      shown === ""
        ? "an empty body, not the JSON envelope {code, msg, data}"
        : `not the JSON envelope {code, msg, data}${contentType ? ` (${contentType})` : ""}: ${shown}`
    )
  }

  // The service's own text, scrubbed like the excerpt: it goes into messages and logs.
  const serverMessage = redactBase64(envelope.msg ?? "")
  const code = redactBase64(envelope.code)
  if (code === "SUCCESS") {
    const result = decodeResult(envelope.data)
    if (Either.isRight(result)) return Either.right(result.right)
    return unexpected("a SUCCESS envelope whose data is not a create-order result {orderSn, outerOrder, h5Url}")
  }
  if (code === "signError") {
    const date = facts.headers.date
    const serverTime = date === undefined ? Number.NaN : Date.parse(date)
    const localClockAheadMs = Number.isFinite(serverTime) ? context.nowMs - serverTime : undefined
    const hint = signatureHint(serverMessage, context.keyVersion, localClockAheadMs)
    return fail(
      new SignatureRejected({
        message:
          `the service rejected the signature (key version ${context.keyVersion}): ${serverMessage || "signError"}` +
          (hint === undefined ? "" : `; hint: ${hint}`) +
          serverSuffix(requestId),
        serverMessage,
        status: facts.status,
        keyVersion: context.keyVersion,
        localClockAheadMs,
        hint,
        requestId
      })
    )
  }
  if (INVALID_REQUEST_CODES.has(code)) {
    const field = code === "paramError" ? fieldFromMessage(envelope.msg) : undefined
    return fail(
      new InvalidRequest({
        message: `the service refused the request (${code}): ${serverMessage || code}${serverSuffix(requestId)}`,
        source: "server",
        code: code as InvalidRequestCode,
        field,
        serverMessage,
        status: facts.status,
        requestId
      })
    )
  }
  if (code === "duplicateOrder") {
    return fail(
      new DuplicateOrder({
        message:
          `orderId ${JSON.stringify(context.orderId)} was already used with a different amount or currency than ` +
          `${context.amount} ${context.currency}: ${serverMessage || code}${serverSuffix(requestId)}`,
        orderId: context.orderId,
        amount: context.amount,
        currency: context.currency,
        serverMessage,
        status: facts.status,
        requestId
      })
    )
  }
  if (code === "rateLimited") {
    return fail(
      new RateLimited({
        message:
          `rate limited by the service${retryAfterMs === undefined ? "" : ` (Retry-After ${Math.ceil(retryAfterMs / 1000)} s)`}: ` +
          `${serverMessage || code}${serverSuffix(requestId)}`,
        retryAfter: retryAfterMs === undefined ? undefined : Duration.millis(retryAfterMs),
        serverMessage,
        status: facts.status,
        requestId
      })
    )
  }
  // serviceUnavailable (the service's database away for a moment) is retried like a failure of the
  // service, after at least its Retry-After (the retry loop waits that long for any retried answer).
  if (
    code === "internalError" ||
    code === "serviceUnavailable" ||
    (!ErrorCode.isResultCode(code) && facts.status >= 500)
  ) {
    return fail(
      new ServerError({
        message: `the service failed (${code}, HTTP ${facts.status}): ${serverMessage || code}${serverSuffix(requestId)}`,
        code,
        serverMessage,
        status: facts.status,
        requestId
      })
    )
  }
  return unexpected(`an envelope with the unknown code ${JSON.stringify(code)}: ${excerpt(serverMessage)}`)
}
