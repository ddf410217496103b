/**
 * `POST /openapi/v2/order/create`, the one production endpoint (spec 4.2): raw body within the
 * limit, media type, the signature check of the environment, validation, idempotency.
 */
import { HttpApiBuilder } from "@effect/platform"
import * as Wire from "@pc/core/Wire"
import { Clock, Effect, Either, FiberRef } from "effect"
import { MockApi } from "../api/MockApi.js"
import { MerchantAuth, signatureCheckHeader } from "../auth/MerchantAuth.js"
import { MockConfig } from "../Config.js"
import { signatureNote } from "../events/MockEvents.js"
import { decodeUtf8, parseJsonObject, rawBody, requireJsonContentType } from "../http/Body.js"
import { ok, paramError } from "../http/Envelope.js"
import { servedAs } from "../http/Served.js"
import {
  type CommonWireError,
  type DuplicateOrder,
  type RateLimited,
  type SignError,
  withHeaders
} from "../http/WireErrors.js"
import { isNumberText, objectMembers } from "../http/Json.js"
import { makeRateLimiter } from "../http/RateLimit.js"
import { Orders, validate } from "../orders/Orders.js"

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

/** The create-order handler, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const CreateOrderHandlers = HttpApiBuilder.group(MockApi, "api", (handlers) =>
  Effect.gen(function* () {
    const config = yield* MockConfig
    const auth = yield* MerchantAuth
    const orders = yield* Orders
    const rateLimit = makeRateLimiter(config.rateLimitPerMinute)
    // handleRaw: the signature covers the exact bytes sent, so the body is read here, raw, and
    // never decoded (and re-encoded) by the framework first.
    return handlers.handleRaw("createOrder", ({ request }) =>
      servedAs<CommonWireError | SignError | DuplicateOrder | RateLimited>()(
        Effect.gen(function* () {
          const bytes = yield* rawBody(config.bodyLimitBytes)
          const body = yield* decodeUtf8(bytes)
          // Authentication first, so that in sandbox every later answer (415 included) can say what
          // production would have decided of the signature.
          const authenticated = yield* auth
            .authenticate({ method: "POST", path: Wire.CREATE_ORDER_PATH, headers: request.headers, body })
            .pipe(
              Effect.tapError((error) =>
                error._tag === "ApiError" && error.code === "signError"
                  ? FiberRef.update(signatureNote, (note) => ({
                      verdict: "refused" as const,
                      cause: error.msg,
                      likelyCause: note?.likelyCause ?? null
                    }))
                  : Effect.void
              )
            )
          yield* FiberRef.update(signatureNote, (note) => ({
            verdict: authenticated.signatureCheck ?? "valid",
            cause: null,
            likelyCause: note?.likelyCause ?? null
          }))
          if (authenticated.signatureCheck !== undefined) {
            yield* withHeaders(signatureCheckHeader(authenticated.signatureCheck))
          }
          if (bytes.length > 0) yield* requireJsonContentType
          yield* rateLimit(authenticated.appKey, yield* Clock.currentTimeMillis)
          const fields = yield* orderFields(body, yield* parseJsonObject(body))
          const order = yield* Either.match(validate(fields), { onLeft: Effect.fail, onRight: Effect.succeed })
          const { result } = yield* orders.create(authenticated.appKey, order)
          return ok(result)
        })
      )
    )
  })
)
