/**
 * `POST /openapi/v2/order/create`, the one production endpoint (spec 4.2): raw body within the
 * limit, media type, the signature check of the environment, validation, idempotency.
 */
import { HttpServerRequest } from "@effect/platform"
import { Headers, Wire } from "@pc/core"
import { Clock, Effect, Either } from "effect"
import { MerchantAuth } from "../auth/MerchantAuth.js"
import { MockConfig } from "../Config.js"
import { decodeUtf8, parseJsonObject, rawBody, requireJsonContentType } from "../http/Body.js"
import { ApiError, ok } from "../http/Envelope.js"
import { route } from "../http/Router.js"
import { Orders, validate } from "../orders/Orders.js"

/** A fixed one-minute window per appKey, only when `--rate-limit-per-minute` is set. */
const makeRateLimiter = (perMinute: number | undefined) => {
  const windows = new Map<string, { start: number; count: number }>()
  return (appKey: string, nowMs: number): Effect.Effect<void, ApiError> => {
    if (perMinute === undefined) return Effect.void
    const windowStart = nowMs - (nowMs % 60_000)
    const current = windows.get(appKey)
    const entry = current !== undefined && current.start === windowStart ? current : { start: windowStart, count: 0 }
    entry.count++
    windows.set(appKey, entry)
    if (entry.count <= perMinute) return Effect.void
    const retryAfter = Math.max(1, Math.ceil((windowStart + 60_000 - nowMs) / 1000))
    return Effect.fail(
      new ApiError({
        code: "rateLimited",
        msg: `more than ${perMinute} requests per minute for this appKey; retry after ${retryAfter} s`,
        headers: { "retry-after": String(retryAfter) }
      })
    )
  }
}

export const createOrderRoute = Effect.gen(function* () {
  const config = yield* MockConfig
  const rateLimit = makeRateLimiter(config.rateLimitPerMinute)
  return route({
    method: "POST",
    path: Wire.CREATE_ORDER_PATH,
    tag: "API",
    summary: "Create a payment order",
    description:
      "Signed with SHA256withRSA over `POST /openapi/v2/order/create\\n<appKey>.<X-R-TS>.<raw body>`. " +
      "Idempotent per appKey and orderId. In sandbox the signature is not enforced; `X-R-Signature-Check` says what production would decide.",
    headers: [
      { name: "X-R-AK", required: true, description: "merchant appKey (UUID)" },
      {
        name: "X-R-TS",
        required: true,
        description: "Unix epoch milliseconds; within +-5 minutes of the server clock"
      },
      { name: "X-R-KEY-VERSION", required: true, description: "ordinal of the merchant's public-key upload" },
      {
        name: "X-R-Signature",
        required: false,
        description: "standard Base64 signature; required in production and gray"
      }
    ],
    body: Wire.CreateOrderRequest,
    answer: { kind: "envelope", data: Wire.CreateOrderResult },
    handle: () =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const bytes = yield* rawBody(config.bodyLimitBytes)
        const body = yield* decodeUtf8(bytes)
        // Authentication first, so that in sandbox every later answer (415 included) can say what
        // production would have decided of the signature.
        const auth = yield* (yield* MerchantAuth).authenticate({
          method: "POST",
          path: Wire.CREATE_ORDER_PATH,
          headers: request.headers,
          body
        })
        const checkHeader =
          auth.signatureCheck === undefined
            ? undefined
            : { [Headers.SIGNATURE_CHECK.toLowerCase()]: auth.signatureCheck }
        return yield* Effect.gen(function* () {
          if (bytes.length > 0) yield* requireJsonContentType
          yield* rateLimit(auth.appKey, yield* Clock.currentTimeMillis)
          const json = yield* parseJsonObject(body)
          const order = yield* Either.match(validate(json), { onLeft: Effect.fail, onRight: Effect.succeed })
          const { result } = yield* (yield* Orders).create(auth.appKey, order)
          return ok(result, checkHeader)
        }).pipe(
          // In sandbox every answer after the appKey check says what production would have decided.
          Effect.catchTag("ApiError", (error) =>
            Effect.fail(
              checkHeader === undefined
                ? error
                : new ApiError({ code: error.code, msg: error.msg, headers: { ...error.headers, ...checkHeader } })
            )
          )
        )
      })
  })
})
