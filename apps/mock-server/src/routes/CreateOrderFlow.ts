/**
 * What `POST /openapi/v2/order/create` does with a request (spec 4.2), whatever serves it: raw body
 * within the limit, the signature check of the environment, media type, rate limit, validation,
 * idempotent creation. The HttpApi route (CreateOrder.ts) and the fast path for the same route
 * (http/CreateOrderFastPath.ts) both run this one service, so they cannot answer differently.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Wire from "@pc/core/Wire"
import { Clock, Context, Effect, Either, FiberRef, Layer } from "effect"
import type { IncomingMessage } from "node:http"
import { MerchantAuth, signatureCheckHeader } from "../auth/MerchantAuth.js"
import { MockConfig } from "../Config.js"
import { signatureNote } from "../events/MockEvents.js"
import { decodeUtf8, parseJsonObject, rawBodyOf, requireJsonMediaType } from "../http/Body.js"
import type { ApiError } from "../http/Envelope.js"
import { paramError } from "../http/Envelope.js"
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

/** One create-order request as it arrived: Node's request (its headers, its unread body). */
export interface CreateOrderInput {
  readonly source: IncomingMessage
  /**
   * Puts headers on whatever response this request ends with, success or error (the sandbox's
   * `X-R-Signature-Check`); each server path has its own way to do that.
   */
  readonly withHeaders: (headers: Readonly<Record<string, string>>) => Effect.Effect<void>
}

const make = Effect.gen(function* () {
  const config = yield* MockConfig
  const auth = yield* MerchantAuth
  const orders = yield* Orders
  // One limiter for the route, whichever path serves a request.
  const rateLimit = makeRateLimiter(config.rateLimitPerMinute)

  const create = ({
    source,
    withHeaders
  }: CreateOrderInput): Effect.Effect<Wire.CreateOrderResult, ApiError | SqlError> =>
    Effect.gen(function* () {
      // Raw: the signature covers the exact bytes sent, so they are never decoded (and re-encoded) first.
      const bytes = yield* rawBodyOf(source, config.bodyLimitBytes)
      const body = yield* decodeUtf8(bytes)
      // Authentication first, so that in sandbox every later answer (415 included) can say what
      // production would have decided of the signature.
      const authenticated = yield* auth
        .authenticate({ method: "POST", path: Wire.CREATE_ORDER_PATH, headers: source.headers, body })
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
      if (bytes.length > 0) yield* requireJsonMediaType(source.headers["content-type"])
      yield* rateLimit(authenticated.appKey, yield* Clock.currentTimeMillis)
      const fields = yield* orderFields(body, yield* parseJsonObject(body))
      const order = yield* Either.match(validate(fields), { onLeft: Effect.fail, onRight: Effect.succeed })
      const { result } = yield* orders.create(authenticated.appKey, order)
      return result
    })

  return { create }
})

/** The create-order route's work, shared by every path that serves the route. */
export class CreateOrderFlow extends Context.Tag("mock-server/CreateOrderFlow")<
  CreateOrderFlow,
  {
    /**
     * Creates the order of one request (or finds its idempotent twin). Fails with the envelope's
     * ApiError (payloadTooLarge, paramError, signError, unsupportedMediaType, rateLimited,
     * duplicateOrder) or a storage SqlError.
     */
    readonly create: (input: CreateOrderInput) => Effect.Effect<Wire.CreateOrderResult, ApiError | SqlError>
  }
>() {
  static readonly layer = Layer.effect(CreateOrderFlow, make)
}
