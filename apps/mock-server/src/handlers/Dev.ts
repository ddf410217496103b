/**
 * The developer menu's handlers (CONTRACT.md, mock only, under /dev/): merchants and their key
 * uploads, the notify URL, platform keys and their rotation, order moves, callback deliveries and
 * resend. Bodies are decoded by the same Schemas that document them (`api/Schemas.ts`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Crypto } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import { MockApi } from "../api/MockApi.js"
import * as S from "../api/Schemas.js"
import { Dispatcher } from "../callbacks/Dispatcher.js"
import { PlatformKeys } from "../callbacks/PlatformKeys.js"
import { MockConfig } from "../config/Config.js"
import { MockEvents } from "../events/MockEvents.js"
import { jsonObjectBody, rawBody } from "../server/Body.js"
import { notFound, orNotFound, paramError } from "../domain/ApiError.js"
import { served } from "./Served.js"
import { isoTime } from "../store/IsoTime.js"
import { Orders, publicOrder } from "../domain/orders/Orders.js"
import { Store } from "../store/Store.js"
import { decodeBody } from "../domain/DecodeBody.js"
import { checkNotifyUrl, Self, type SelfAddress } from "../config/UrlRule.js"
import type { DeliveryWithAttempts } from "../store/Records.js"
import { resolvesToSelf } from "../domain/NotifyUrlSelf.js"

/** A key upload: RSA public key PEM (SPKI or PKCS#1), 2048 bits or more; anything else is a paramError. */
const checkPublicKey = (pem: string) =>
  Effect.tryPromise({
    try: () => NodeCrypto.importPublicKey(pem),
    catch: (error) =>
      paramError(
        `publicKeyPem: ${error instanceof Crypto.KeyImportError ? error.message : "not a valid RSA public key"}`
      )
  }).pipe(Effect.as(pem))

/**
 * The notify URL rule beyond its Schema: not this mock itself (UrlRule.ts as written, and its
 * name resolved, domain/NotifyUrlSelf.ts), since a callback sent there would run one of the
 * mock's own routes, such as rotating the platform key.
 */
const notSelf = (notifyUrl: string, self: SelfAddress) => {
  const checked = checkNotifyUrl(notifyUrl, self)
  if (!checked.ok) return Effect.fail(paramError(checked.message))
  return Effect.flatMap(
    Effect.promise(() => resolvesToSelf(checked.url, self)),
    (reachesSelf) =>
      reachesSelf
        ? Effect.fail(
            paramError(
              `notifyUrl: ${checked.url.hostname} resolves to this mock itself; callbacks go to the merchant's own server (another host or port)`
            )
          )
        : Effect.succeed(notifyUrl)
  )
}

/** A delivery as the developer menu shows it. */
export const publicDelivery = (delivery: DeliveryWithAttempts): typeof S.Delivery.Type => ({
  id: delivery.id,
  orderSn: delivery.orderSn,
  appKey: delivery.appKey,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  status: delivery.status,
  attemptCount: delivery.attemptCount,
  nextAttemptAt: delivery.nextAttemptAtMs === null ? null : isoTime(delivery.nextAttemptAtMs),
  lastError: delivery.lastError,
  createdAt: delivery.createdAt,
  deliveredAt: delivery.deliveredAt,
  body: delivery.body,
  attempts: delivery.attempts
})

/** How many orders or merchants a list answers without a `limit`. */
const DEFAULT_LIST_LIMIT = 50

const move = (orderSn: string, to: "PAID" | "FAILED" | "EXPIRED") =>
  served(
    Effect.map(
      Effect.flatMap(Orders, (orders) => orders.move(orderSn, to)),
      (order) => S.success(publicOrder(order))
    )
  )

const encoder = new TextEncoder()

/**
 * The SSE answer: one `data:` line of JSON per event, a comment every 15 s so that proxies and
 * readers see the connection alive. The subscription lasts as long as the response stream.
 */
const eventStream = (events: MockEvents["Type"]) =>
  HttpServerResponse.stream(
    Stream.unwrapScoped(events.subscribe).pipe(
      Stream.map((event) => `data: ${JSON.stringify(event)}\n\n`),
      Stream.merge(Stream.map(Stream.fromSchedule(Schedule.spaced("15 seconds")), () => ": ping\n\n")),
      Stream.prepend(Chunk.of(": connected\n\n")),
      Stream.map((text) => encoder.encode(text))
    ),
    { contentType: "text/event-stream", headers: { "cache-control": "no-store" } }
  )

/** The developer menu's handlers, as a layer for `HttpApiBuilder.api(MockApi)`. */
export const DevHandlers = HttpApiBuilder.group(MockApi, "dev", (handlers) =>
  Effect.gen(function* () {
    const config = yield* MockConfig
    const store = yield* Store
    const dispatcher = yield* Dispatcher
    const platformKeys = yield* PlatformKeys
    const orders = yield* Orders
    const self = yield* Self
    const body = <A, I>(schema: Schema.Schema<A, I>) =>
      Effect.flatMap(jsonObjectBody(config.bodyLimitBytes), decodeBody(schema))
    const events = yield* MockEvents
    return handlers
      .handle("events", () => Effect.succeed(eventStream(events)))
      .handleRaw("createMerchant", () =>
        served(
          Effect.gen(function* () {
            const input = yield* body(S.MerchantCreate)
            const publicKeyPem = yield* checkPublicKey(input.publicKeyPem)
            if (input.notifyUrl !== undefined) yield* notSelf(input.notifyUrl, self)
            const appKey = randomUUID()
            const keyVersion = yield* store.createMerchant({
              appKey,
              publicKeyPem,
              notifyUrl: input.notifyUrl ?? null,
              nowMs: yield* Clock.currentTimeMillis
            })
            return S.success({ appKey, keyVersion })
          })
        )
      )
      .handle("getMerchant", ({ path }) =>
        served(Effect.map(orNotFound(`merchant ${path.appKey}`)(store.getMerchant(path.appKey)), S.success))
      )
      .handleRaw("addMerchantKey", ({ path }) =>
        served(
          Effect.gen(function* () {
            const input = yield* body(S.KeyUpload)
            const publicKeyPem = yield* checkPublicKey(input.publicKeyPem)
            const keyVersion = yield* store
              .addMerchantKey(path.appKey, publicKeyPem, yield* Clock.currentTimeMillis)
              .pipe(Effect.catchTag("NotFound", () => Effect.fail(notFound(`no merchant ${path.appKey}`))))
            return S.success({ keyVersion })
          })
        )
      )
      .handle("disableMerchantKey", ({ path }) =>
        served(
          store.disableMerchantKey(path.appKey, path.version).pipe(
            Effect.catchTag("NotFound", (e) => Effect.fail(notFound(`no ${e.what}`))),
            Effect.as(S.success({ version: path.version, status: "disabled" as const }))
          )
        )
      )
      .handle("enableMerchantKey", ({ path }) =>
        served(
          store.enableMerchantKey(path.appKey, path.version).pipe(
            Effect.catchTag("NotFound", (e) => Effect.fail(notFound(`no ${e.what}`))),
            Effect.as(S.success({ version: path.version, status: "active" as const }))
          )
        )
      )
      .handleRaw("setNotifyUrl", ({ path }) =>
        served(
          Effect.gen(function* () {
            const { notifyUrl } = yield* body(S.NotifyUrlUpdate)
            yield* notSelf(notifyUrl, self)
            yield* store
              .setNotifyUrl(path.appKey, notifyUrl, yield* Clock.currentTimeMillis)
              .pipe(Effect.catchTag("NotFound", () => Effect.fail(notFound(`no merchant ${path.appKey}`))))
            yield* dispatcher.notifyUrlChanged(path.appKey)
            return S.success({ appKey: path.appKey, notifyUrl })
          })
        )
      )
      .handle("listPlatformKeys", () => served(Effect.map(platformKeys.list, S.success)))
      .handleRaw("rotatePlatformKey", () =>
        served(
          Effect.gen(function* () {
            // The body is optional: a JSON body may ask for publishOnly; any other body (older pc,
            // a bare POST) is read within the limit and ignored, and the key rotates at once.
            const request = yield* HttpServerRequest.HttpServerRequest
            const json = request.headers["content-type"]?.toLowerCase().startsWith("application/json") === true
            const input = json
              ? yield* body(S.PlatformKeyRotation)
              : yield* Effect.as(rawBody(config.bodyLimitBytes), {} as { readonly publishOnly?: boolean })
            return yield* platformKeys.rotate({ publishOnly: input.publishOnly === true })
          }).pipe(
            Effect.tap((key) => events.publish({ type: "platformKey.rotated", version: key.version })),
            Effect.map(S.success)
          )
        )
      )
      .handle("activatePlatformKey", ({ path }) =>
        served(
          orNotFound(`published platform key ${path.version}`)(
            Effect.map(platformKeys.activate(path.version), Option.fromNullable)
          ).pipe(
            Effect.tap((key) => events.publish({ type: "platformKey.rotated", version: key.version })),
            Effect.map(S.success)
          )
        )
      )
      .handle("retirePlatformKey", ({ path }) =>
        served(
          Effect.gen(function* () {
            const keys = yield* platformKeys.list
            if (keys.some((k) => k.version === path.version && k.status === "current")) {
              return yield* paramError(`platform key ${path.version} is current: activate another key first`)
            }
            const key = yield* orNotFound(`published platform key ${path.version}`)(
              Effect.map(platformKeys.retire(path.version), Option.fromNullable)
            )
            return S.success(key)
          })
        )
      )
      .handle("getOrder", ({ path }) =>
        served(
          orNotFound(`order ${path.orderSn}`)(store.getOrder(path.orderSn)).pipe(
            Effect.map((order) => S.success(publicOrder(order)))
          )
        )
      )
      .handle("payOrder", ({ path }) => Effect.provideService(move(path.orderSn, "PAID"), Orders, orders))
      .handle("failOrder", ({ path }) => Effect.provideService(move(path.orderSn, "FAILED"), Orders, orders))
      .handle("expireOrder", ({ path }) => Effect.provideService(move(path.orderSn, "EXPIRED"), Orders, orders))
      .handle("listCallbacks", ({ urlParams }) =>
        served(
          Effect.map(store.deliveriesOf(urlParams.orderSn, urlParams.limit), (deliveries) =>
            S.success(deliveries.map(publicDelivery))
          )
        )
      )
      .handle("listOrders", ({ urlParams }) =>
        served(
          Effect.map(store.recentOrders(urlParams.limit ?? DEFAULT_LIST_LIMIT), (rows) =>
            S.success(rows.map((order) => ({ ...publicOrder(order), appKey: order.appKey })))
          )
        )
      )
      .handle("listMerchants", ({ urlParams }) =>
        served(Effect.map(store.recentMerchants(urlParams.limit ?? DEFAULT_LIST_LIMIT), S.success))
      )
      .handle("resendCallback", ({ path }) =>
        served(
          dispatcher.resend(path.id).pipe(
            Effect.catchTag("NotFound", () => Effect.fail(notFound(`no delivery ${path.id}`))),
            Effect.map((delivery) => S.success(publicDelivery(delivery)))
          )
        )
      )
  })
)
