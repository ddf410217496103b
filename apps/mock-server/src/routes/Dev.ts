/**
 * The developer menu (CONTRACT.md, mock only, under /dev/): merchants and their key uploads, the
 * notify URL, platform keys and their rotation, order moves, callback deliveries and resend.
 */
import { HttpServerRequest } from "@effect/platform"
import { Crypto } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { Clock, Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Dispatcher } from "../callbacks/Dispatcher.js"
import { PlatformKeys } from "../callbacks/PlatformKeys.js"
import { MockConfig } from "../Config.js"
import { jsonObjectBody } from "../http/Body.js"
import { notFound, ok, orNotFound, paramError } from "../http/Envelope.js"
import { isoTime } from "../IsoTime.js"
import { route } from "../http/Router.js"
import { Orders, publicOrder } from "../orders/Orders.js"
import type { DeliveryWithAttempts } from "../store/Store.js"
import { Store } from "../store/Store.js"
import { checkNotifyUrl as checkNotifyUrlRule, Self } from "../UrlRule.js"

const KeyUpload = Schema.Struct({ publicKeyPem: Schema.String })
const MerchantCreate = Schema.Struct({ publicKeyPem: Schema.String, notifyUrl: Schema.optional(Schema.String) })
const NotifyUrlUpdate = Schema.Struct({ notifyUrl: Schema.String })

/** A key upload: RSA public key PEM (SPKI or PKCS#1), 2048 bits or more; anything else is a paramError. */
const checkPublicKey = (pem: unknown) =>
  Effect.gen(function* () {
    if (typeof pem !== "string") return yield* paramError("publicKeyPem: a PEM public key is required")
    yield* Effect.tryPromise({
      try: () => NodeCrypto.importPublicKey(pem),
      catch: (error) =>
        paramError(
          `publicKeyPem: ${error instanceof Crypto.KeyImportError ? error.message : "not a valid RSA public key"}`
        )
    })
    return pem
  })

/** The one URL rule (UrlRule.ts): absolute http(s), no credentials, and not this mock itself. */
const checkNotifyUrl = (value: unknown) =>
  Effect.flatMap(Self, (self) => {
    const checked = checkNotifyUrlRule(value, self)
    return checked.ok ? Effect.succeed(value as string) : Effect.fail(paramError(checked.message))
  })

const positiveVersion = (text: string | undefined) =>
  text !== undefined && /^[1-9][0-9]{0,8}$/.test(text)
    ? Effect.succeed(Number(text))
    : Effect.fail(paramError(`version: ${JSON.stringify(text)} is not a key version (1, 2, 3, ...)`))

const publicDelivery = (delivery: DeliveryWithAttempts) => ({
  id: delivery.id,
  orderSn: delivery.orderSn,
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

const merchantView = (appKey: string) =>
  Effect.flatMap(Store, (store) => store.getMerchant(appKey)).pipe(orNotFound(`merchant ${appKey}`))

const move = (to: "PAID" | "FAILED" | "EXPIRED", verb: string) =>
  route({
    method: "POST",
    path: `/dev/orders/:orderSn/${verb}`,
    tag: "Developer menu",
    summary: `Move a CREATED order to ${to} (sends its ${to.toLowerCase()} callback)`,
    answer: { kind: "envelope" },
    handle: ({ orderSn }) =>
      Effect.flatMap(Orders, (orders) => orders.move(orderSn!, to)).pipe(Effect.map((order) => ok(publicOrder(order))))
  })

export const devRoutes = Effect.gen(function* () {
  const config = yield* MockConfig
  const body = jsonObjectBody(config.bodyLimitBytes)
  return [
    route({
      method: "POST",
      path: "/dev/merchants",
      tag: "Developer menu",
      summary: "Create a merchant from its first public key upload (key version 1)",
      body: MerchantCreate,
      answer: { kind: "envelope" },
      handle: () =>
        Effect.gen(function* () {
          const input = yield* body
          const publicKeyPem = yield* checkPublicKey(input.publicKeyPem)
          const notifyUrl = input.notifyUrl === undefined ? null : yield* checkNotifyUrl(input.notifyUrl)
          const appKey = randomUUID()
          const keyVersion = yield* (yield* Store).createMerchant({
            appKey,
            publicKeyPem,
            notifyUrl,
            nowMs: yield* Clock.currentTimeMillis
          })
          return ok({ appKey, keyVersion })
        })
    }),
    route({
      method: "GET",
      path: "/dev/merchants/:appKey",
      tag: "Developer menu",
      summary: "A merchant with its notify URL and key versions",
      answer: { kind: "envelope" },
      handle: ({ appKey }) => Effect.map(merchantView(appKey!), (merchant) => ok(merchant))
    }),
    route({
      method: "POST",
      path: "/dev/merchants/:appKey/keys",
      tag: "Developer menu",
      summary: "Upload another public key; its version is the ordinal of the upload",
      body: KeyUpload,
      answer: { kind: "envelope" },
      handle: ({ appKey }) =>
        Effect.gen(function* () {
          const input = yield* body
          const publicKeyPem = yield* checkPublicKey(input.publicKeyPem)
          const keyVersion = yield* (yield* Store)
            .addMerchantKey(appKey!, publicKeyPem, yield* Clock.currentTimeMillis)
            .pipe(Effect.catchTag("NotFound", () => Effect.fail(notFound(`no merchant ${appKey}`))))
          return ok({ keyVersion })
        })
    }),
    route({
      method: "POST",
      path: "/dev/merchants/:appKey/keys/:version/disable",
      tag: "Developer menu",
      summary: "Disable a key version: requests signed with it are refused from now on",
      answer: { kind: "envelope" },
      handle: ({ appKey, version }) =>
        Effect.gen(function* () {
          const n = yield* positiveVersion(version)
          yield* (yield* Store)
            .disableMerchantKey(appKey!, n)
            .pipe(Effect.catchTag("NotFound", (e) => Effect.fail(notFound(`no ${e.what}`))))
          return ok({ version: n, status: "disabled" })
        })
    }),
    route({
      method: "PUT",
      path: "/dev/merchants/:appKey/notify-url",
      tag: "Developer menu",
      summary: "Set where callbacks are sent; deliveries still waiting are attempted at once",
      body: NotifyUrlUpdate,
      answer: { kind: "envelope" },
      handle: ({ appKey }) =>
        Effect.gen(function* () {
          const input = yield* body
          const notifyUrl = yield* checkNotifyUrl(input.notifyUrl)
          yield* (yield* Store)
            .setNotifyUrl(appKey!, notifyUrl, yield* Clock.currentTimeMillis)
            .pipe(Effect.catchTag("NotFound", () => Effect.fail(notFound(`no merchant ${appKey}`))))
          yield* (yield* Dispatcher).wake
          return ok({ appKey, notifyUrl })
        })
    }),
    route({
      method: "GET",
      path: "/dev/platform-keys",
      tag: "Developer menu",
      summary: "The environment's platform public keys, by version, with their status",
      answer: { kind: "envelope" },
      handle: () =>
        Effect.map(
          Effect.flatMap(PlatformKeys, (keys) => keys.list),
          (keys) => ok(keys)
        )
    }),
    route({
      method: "POST",
      path: "/dev/platform-keys/rotate",
      tag: "Developer menu",
      summary: "Publish a new platform key that signs every callback from now on; the old one stays published",
      answer: { kind: "envelope" },
      handle: () =>
        Effect.map(
          Effect.flatMap(PlatformKeys, (keys) => keys.rotate),
          (key) => ok(key)
        )
    }),
    route({
      method: "GET",
      path: "/dev/orders/:orderSn",
      tag: "Developer menu",
      summary: "An order and its state",
      answer: { kind: "envelope" },
      handle: ({ orderSn }) =>
        Effect.flatMap(Store, (store) => store.getOrder(orderSn!)).pipe(
          orNotFound(`order ${orderSn}`),
          Effect.map((order) => ok(publicOrder(order)))
        )
    }),
    move("PAID", "pay"),
    move("FAILED", "fail"),
    move("EXPIRED", "expire"),
    route({
      method: "GET",
      path: "/dev/callbacks",
      tag: "Developer menu",
      summary: "Callback deliveries with their attempts (time, HTTP status, error), optionally for one order",
      query: [{ name: "orderSn", description: "only the deliveries of this order" }],
      answer: { kind: "envelope" },
      handle: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const orderSn = new URL(request.url, "http://mock").searchParams.get("orderSn") ?? undefined
          const deliveries = yield* (yield* Store).deliveriesOf(orderSn)
          return ok(deliveries.map(publicDelivery))
        })
    }),
    route({
      method: "POST",
      path: "/dev/callbacks/:id/resend",
      tag: "Developer menu",
      summary: "Queue a delivery again now, signed afresh",
      answer: { kind: "envelope" },
      handle: ({ id }) =>
        Effect.flatMap(Dispatcher, (dispatcher) => dispatcher.resend(id!)).pipe(
          Effect.catchTag("NotFound", () => Effect.fail(notFound(`no delivery ${id}`))),
          Effect.map((delivery) => ok(publicDelivery(delivery)))
        )
    })
  ]
})
