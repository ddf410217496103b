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
import { type SignatureNote, signatureNote } from "../events/MockEvents.js"
import { jsonMediaTypeRefusal, jsonObjectOf, rawBodyOf, utf8Text } from "../http/Body.js"
import { ApiError, paramError } from "../http/Envelope.js"
import { isNumberText, objectMembers } from "../http/Json.js"
import { makeRateLimiter } from "../http/RateLimit.js"
import { Orders, type ValidOrderRequest, validate } from "../orders/Orders.js"

/**
 * The body's fields as the contract reads them: a key written twice is refused (the signature
 * covers both, yet JSON.parse would keep only the last), and an amount written as a JSON number is
 * judged by its digits as written (`10.500`, `1e2`), which JSON.parse would round away.
 */
const orderFields = (text: string, parsed: Record<string, unknown>): Record<string, unknown> | ApiError => {
  const members = objectMembers(text)
  if (!members.ok) return paramError(`body: ${members.message}`)
  const amount = members.members.get("amount")
  return amount !== undefined && typeof parsed.amount === "number" && isNumberText(amount)
    ? { ...parsed, amount }
    : parsed
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

  /** What production would decide of the signature, for the request's `request` event. */
  const noteVerdict = (verdict: SignatureNote["verdict"], cause: string | null) =>
    FiberRef.update(signatureNote, (note) => ({ verdict, cause, likelyCause: note?.likelyCause ?? null }))

  /**
   * The checks after authentication, in the contract's order (media type, rate limit, JSON,
   * fields, validation), as plain functions: the valid order, or the first refusal.
   */
  const checked = (
    source: IncomingMessage,
    bytes: Uint8Array,
    body: string,
    appKey: string,
    nowMs: number
  ): ValidOrderRequest | ApiError => {
    if (bytes.length > 0) {
      const refused = jsonMediaTypeRefusal(source.headers["content-type"])
      if (refused !== undefined) return refused
    }
    const limited = rateLimit(appKey, nowMs)
    if (limited !== undefined) return limited
    const parsed = jsonObjectOf(body)
    if (parsed instanceof ApiError) return parsed
    const fields = orderFields(body, parsed)
    if (fields instanceof ApiError) return fields
    return Either.getOrElse(validate(fields), (refused) => refused)
  }

  /**
   * One step per wait (the body, the signature's verification, the insert) and plain functions in
   * between: a fiber step each for what is pure cost most of a create's CPU (issue 12's profile).
   */
  const create = ({
    source,
    withHeaders
  }: CreateOrderInput): Effect.Effect<Wire.CreateOrderResult, ApiError | SqlError> =>
    // Raw: the signature covers the exact bytes sent, so they are never decoded (and re-encoded) first.
    Effect.flatMap(rawBodyOf(source, config.bodyLimitBytes), (bytes) => {
      const body = utf8Text(bytes)
      if (body instanceof ApiError) return Effect.fail(body)
      // Authentication first, so that in sandbox every later answer (415 included) can say what
      // production would have decided of the signature.
      return auth.authenticate({ method: "POST", path: Wire.CREATE_ORDER_PATH, headers: source.headers, body }).pipe(
        Effect.tapError((error) =>
          error._tag === "ApiError" && error.code === "signError" ? noteVerdict("refused", error.msg) : Effect.void
        ),
        Effect.flatMap((authenticated) => {
          const noted = noteVerdict(authenticated.signatureCheck ?? "valid", null)
          const ready =
            authenticated.signatureCheck === undefined
              ? noted
              : Effect.zipRight(noted, withHeaders(signatureCheckHeader(authenticated.signatureCheck)))
          return Effect.flatMap(Effect.zipRight(ready, Clock.currentTimeMillis), (nowMs) => {
            const order = checked(source, bytes, body, authenticated.appKey, nowMs)
            if (order instanceof ApiError) return Effect.fail(order)
            return Effect.map(orders.create(authenticated.appKey, order, nowMs), ({ result }) => result)
          })
        })
      )
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
