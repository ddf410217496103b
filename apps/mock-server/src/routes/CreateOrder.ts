/**
 * `POST /openapi/v2/order/create`, the one production endpoint (spec 4.2): raw body within the
 * limit, media type, the signature check of the environment, validation, idempotency.
 */
import { HttpServerRequest } from "@effect/platform"
import * as Wire from "@pc/core/Wire"
import { Clock, Effect, Either, Schema } from "effect"
import { MerchantAuth, signatureCheckHeader } from "../auth/MerchantAuth.js"
import { MockConfig } from "../Config.js"
import { decodeUtf8, parseJsonObject, rawBody, requireJsonContentType } from "../http/Body.js"
import { ApiError, ok, paramError } from "../http/Envelope.js"
import { isNumberText, objectMembers } from "../http/Json.js"
import { makeRateLimiter } from "../http/RateLimit.js"
import { route } from "../http/Router.js"
import { Orders, validate } from "../orders/Orders.js"

/** The body as `/openapi.json` documents it: the contract's rules, where JSON Schema can say them. */
const CreateOrderBody = Schema.Struct({
  orderId: Wire.OrderId.annotations({
    jsonSchema: {
      type: "string",
      minLength: 1,
      maxLength: 64,
      description: "the merchant's order id: 1 to 64 characters, no control characters"
    }
  }),
  amount: Wire.AmountInput.annotations({
    description:
      'positive, as a string ("10.00") or a number (10.5), with at most the currency\'s ISO 4217 decimals ' +
      "(USD 2, JPY 0, KWD 3) and 12 integer digits; no exponent"
  }),
  currency: Wire.Currency.annotations({
    jsonSchema: { type: "string", pattern: "^[A-Z]{3}$", description: "an active ISO 4217 code, upper case" }
  })
}).annotations({ description: "Unknown fields are ignored (they are still part of the signed body)." })

/**
 * The body's fields as the contract reads them: a key written twice is refused (the signature
 * covers both, yet JSON.parse would keep only the last), and an amount written as a JSON number is
 * judged by its digits as written (`10.500`, `1e2`), which JSON.parse would round away.
 */
const orderFields = (text: string, parsed: Record<string, unknown>) => {
  const members = objectMembers(text)
  if (!members.ok) return Effect.fail(paramError(`body: ${members.message}`))
  const amount = members.members.get("amount")
  return Effect.succeed(
    amount !== undefined && typeof parsed.amount === "number" && isNumberText(amount) ? { ...parsed, amount } : parsed
  )
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
    body: CreateOrderBody,
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
        const checkHeader = auth.signatureCheck === undefined ? undefined : signatureCheckHeader(auth.signatureCheck)
        return yield* Effect.gen(function* () {
          if (bytes.length > 0) yield* requireJsonContentType
          yield* rateLimit(auth.appKey, yield* Clock.currentTimeMillis)
          const fields = yield* orderFields(body, yield* parseJsonObject(body))
          const order = yield* Either.match(validate(fields), { onLeft: Effect.fail, onRight: Effect.succeed })
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
