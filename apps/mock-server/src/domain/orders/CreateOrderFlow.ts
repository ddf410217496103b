/**
 * What `POST /openapi/v2/order/create` does with a request's raw body (spec 4.2), whatever serves
 * it: the signature check of the environment, media type, rate limit, validation, idempotent
 * creation. The HttpApi route (handlers/CreateOrder.ts) and the fast path for the same route
 * (server/CreateOrderFastPath.ts) both run this one service, so they cannot answer differently. It is
 * written in steps (domain/Step.ts): on SQLite with the merchant's keys cached, a create runs without
 * a fiber, and without a wait unless its signature is verified on the thread pool; on PostgreSQL it
 * waits for the statements it shares with the requests that arrived together, still without a fiber.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Wire from "@pc/core/Wire"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { MerchantAuth, signatureCheckHeader } from "../auth/MerchantAuth.js"
import { MockConfig } from "../../config/Config.js"
import { eventPublisherNow } from "../../events/MockEvents.js"
import { ApiError, paramError } from "../ApiError.js"
import { isNumberText, objectMembers } from "../Json.js"
import { jsonMediaTypeRefusal, jsonObjectOf, utf8Text } from "../JsonBody.js"
import { Faults } from "../Faults.js"
import * as Step from "../Step.js"
import type { CreateOrderOutcome } from "./CreateOrderOutcome.js"
import { withFault } from "./FaultedCreate.js"
import { makeRateLimiter } from "./RateLimit.js"
import { Orders, type ValidOrderRequest, validate } from "./Orders.js"

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

/** One create-order request as it arrived: its headers and its raw body, whichever server read them. */
export interface CreateOrderInput {
  /** The request's headers, names lower-case (as Node gives them). */
  readonly headers: { readonly [name: string]: string | ReadonlyArray<string> | undefined }
  /** The body's exact bytes, read within the limit (the signature covers them). */
  readonly bytes: Uint8Array
  /** Other requests are waiting: the signature's verification leaves the event loop (see AuthInput). */
  readonly busy?: boolean
  /** The request's id, for what is logged about it on the way (a refused signature's warning). */
  readonly requestId?: string | undefined
}

export type { CreateOrderOutcome } from "./CreateOrderOutcome.js"

/**
 * A storage failure after the signature check: the request is answered internalError (500), and
 * that answer still carries what the check decided (the sandbox's `X-R-Signature-Check`, the
 * request event's note), as every other answer after it does.
 */
export class CreateStorageFailed extends Data.TaggedError("CreateStorageFailed")<{
  readonly cause: SqlError
  readonly headers: CreateOrderOutcome["headers"]
  readonly note: CreateOrderOutcome["note"]
}> {}

const make: Effect.Effect<CreateOrderFlowService, never, MockConfig | MerchantAuth | Orders> = Effect.gen(function* () {
  const config = yield* MockConfig
  const auth = yield* MerchantAuth
  const orders = yield* Orders
  const clock = yield* Effect.clock
  // Faults on purpose (domain/Faults.ts), when the mock was given the service.
  const faults = Option.getOrUndefined(yield* Effect.serviceOption(Faults))
  const publish = yield* eventPublisherNow
  // One limiter for the route, whichever path serves a request.
  const rateLimit = makeRateLimiter(config.rateLimitPerMinute)

  /**
   * The checks after authentication, in the contract's order (media type, rate limit, JSON,
   * fields, validation), as plain functions: the valid order, or the first refusal.
   */
  const checked = (
    contentType: string | ReadonlyArray<string> | undefined,
    bytes: Uint8Array,
    body: string,
    appKey: string,
    nowMs: number
  ): ValidOrderRequest | ApiError => {
    if (bytes.length > 0) {
      const refused = jsonMediaTypeRefusal(typeof contentType === "string" ? contentType : undefined)
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

  const create = ({
    headers: requestHeaders,
    bytes,
    busy,
    requestId
  }: CreateOrderInput): Step.Step<CreateOrderOutcome, SqlError | CreateStorageFailed> => {
    const body = utf8Text(bytes)
    if (body instanceof ApiError) return { answer: body, headers: undefined, note: undefined }
    // Authentication first, so that in sandbox every later answer (415 included) can say what
    // production would have decided of the signature.
    const input = {
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      headers: requestHeaders,
      body,
      busy: busy === true,
      requestId
    }
    return Step.andThen(auth.authenticate(input, clock.unsafeCurrentTimeMillis()), (authenticated) => {
      if (!authenticated.ok) return { answer: authenticated.error, headers: undefined, note: authenticated.note }
      const { note } = authenticated
      const headers =
        authenticated.signatureCheck === undefined ? undefined : signatureCheckHeader(authenticated.signatureCheck)
      const nowMs = clock.unsafeCurrentTimeMillis()
      const order = checked(requestHeaders["content-type"], bytes, body, authenticated.appKey, nowMs)
      if (order instanceof ApiError) return { answer: order, headers, note }
      const store = () =>
        Step.match(
          Step.mapError(
            orders.create(authenticated.appKey, order, nowMs),
            (cause) => new CreateStorageFailed({ cause, headers, note })
          ),
          (created): CreateOrderOutcome => ({ answer: created.result, headers, note }),
          (refused): CreateOrderOutcome => ({ answer: refused, headers, note })
        )
      if (faults === undefined) return store()
      return withFault(faults.createOrder(), { headers, note, publish, orderId: order.orderId, requestId }, store)
    })
  }

  return { create }
})

/** The create-order route's work, shared by every adapter that serves the route. */
export interface CreateOrderFlowService {
  /**
   * Answers one create-order request whose body was read: the order (new, or its idempotent
   * twin), or the refusal (paramError, signError, unsupportedMediaType, rateLimited,
   * duplicateOrder) as the outcome's answer. A step (domain/Step.ts) that fails only in storage: a
   * SqlError while authenticating, a CreateStorageFailed (with the check's headers and note) after.
   */
  readonly create: (input: CreateOrderInput) => Step.Step<CreateOrderOutcome, SqlError | CreateStorageFailed>
}

/** The {@link CreateOrderFlowService} in context. */
export class CreateOrderFlow extends Context.Tag("@pc/mock-server/CreateOrderFlow")<
  CreateOrderFlow,
  CreateOrderFlowService
>() {
  /**
   * The service, made from what the caller's context holds:
   * main/Server.ts makes the mock's services one after another in one layer.
   *
   * @example
   * ```ts
   * const createOrderFlow = yield* Effect.provide(CreateOrderFlow.make, context)
   * ```
   */
  static readonly make = make
  static readonly layer = Layer.effect(CreateOrderFlow, make)
}
