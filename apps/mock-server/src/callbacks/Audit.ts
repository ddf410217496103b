/**
 * The callback endpoint audit over the network (CONTRACT.md "Callback endpoint audit"): core's
 * battery (`@pc/core/CallbackAudit`) sent over node:http, one request at a time or together,
 * each bounded by the callback timeout, none ever following a redirect, and each check published
 * as an `audit.check` event. The audit pays an order of its own without recording a delivery: its
 * callbacks are not deliveries and never reach the dispatcher.
 */
import type { Crypto } from "@pc/core"
import * as CallbackAudit from "@pc/core/CallbackAudit"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { generateKeyPair, randomUUID } from "node:crypto"
import { type IncomingMessage, request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { Socket } from "node:net"
import { promisify } from "node:util"
import { MockConfig } from "../config/Config.js"
import { MockEvents } from "../events/MockEvents.js"
import { notFound, paramError } from "../domain/ApiError.js"
import * as Step from "../domain/Step.js"
import { Orders } from "../domain/orders/Orders.js"
import { Store } from "../store/Store.js"
import { checkNotifyUrl, pointsAtSelf, Self, type SelfAddress } from "../config/UrlRule.js"
import { PlatformKeys } from "./PlatformKeys.js"
import { platformSigner } from "./CallbackSigner.js"

/** How much of an answer is read: the status is what counts, a 10 MB answer is never downloaded. */
const ANSWER_CAP_BYTES = 4096

let wrongKey: Promise<Crypto.Signer> | undefined
/**
 * A key that is no platform key, made once per process (`wrong-key` signs with it), on the thread
 * pool: a 2048-bit key takes up to a second to make, which the event loop must not wait for.
 */
const wrongSigner = (): Promise<Crypto.Signer> => {
  wrongKey ??= promisify(generateKeyPair)("rsa", { modulusLength: 2048 }).then(({ privateKey }) =>
    platformSigner(privateKey.export({ type: "pkcs8", format: "pem" }).toString())
  )
  return wrongKey
}

/**
 * `send` over node:http(s) to `url`: the status and the time to it, or why there is none within
 * `timeoutMs`. At most {@link ANSWER_CAP_BYTES} of the answer are read before the connection is
 * cut; a 3xx is reported with its `Location`, never followed; a connection that reaches this very
 * mock (whatever name led there) is cut before anything is sent.
 *
 * @example
 * ```ts
 * const send = httpSend(new URL("http://127.0.0.1:3000/cb"), self)
 * const answer = await send({ headers, body }, 10_000)
 * ```
 */
export const httpSend =
  (url: URL, self: SelfAddress): CallbackAudit.Send =>
  (request, timeoutMs) =>
    new Promise((resolve) => {
      const payload = Buffer.from(request.body, "utf8")
      const started = performance.now()
      const elapsed = () => Math.round(performance.now() - started)
      let settled = false
      let status: number | null = null
      let location: string | undefined
      const finish = (answer: CallbackAudit.AuditAnswer) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        outgoing.destroy()
        resolve(answer)
      }
      const outgoing = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, {
        method: "POST",
        // One connection per request: concurrent duplicates arrive as 5 requests at once.
        agent: false,
        headers: { ...request.headers, "content-length": String(payload.length) }
      })
      const timer = setTimeout(() => {
        // The status line came in time and the body drips: the status counts, at the time it came.
        if (status !== null) finish({ status, ms: timeoutMs, ...(location === undefined ? {} : { location }) })
        else finish({ status: null, ms: timeoutMs, timedOut: true, error: `no answer within ${timeoutMs} ms` })
      }, timeoutMs)
      outgoing.once("socket", (socket: Socket) => {
        socket.once("connect", () => {
          const address = socket.remoteAddress
          const host = address?.includes(":") ? `[${address}]` : address
          if (host !== undefined && pointsAtSelf(new URL(`http://${host}:${socket.remotePort}`), self))
            finish({
              status: null,
              ms: elapsed(),
              error: "the endpoint's address is this mock itself; nothing was sent"
            })
        })
      })
      outgoing.once("response", (answer: IncomingMessage) => {
        status = answer.statusCode ?? 0
        const ms = elapsed()
        const header = answer.headers.location
        location = typeof header === "string" ? header : undefined
        let read = 0
        const done = () => finish({ status: status ?? 0, ms, ...(location === undefined ? {} : { location }) })
        answer.on("data", (chunk: Buffer) => {
          read += chunk.length
          if (read >= ANSWER_CAP_BYTES) done()
        })
        answer.once("end", done)
        answer.once("error", done)
        answer.once("close", done)
      })
      outgoing.on("error", (cause) => {
        if (status === null) finish({ status: null, ms: elapsed(), error: `request failed: ${cause.message}` })
      })
      outgoing.end(payload)
    })

/** What the audit route is asked: where (default: the notify URL) and for which order (default: its own). */
export interface AuditInput {
  readonly url?: string | undefined
  readonly orderSn?: string | undefined
}

/**
 * Runs the battery for merchant `appKey` and resolves the report. Fails with notFound (no such
 * merchant or order) or paramError (no URL to audit, a URL against the notify-URL rule, an order
 * of another merchant).
 *
 * @example
 * ```ts
 * const report = yield* audit(appKey, { url: "http://127.0.0.1:3000/cb" })
 * ```
 */
export const audit = (appKey: string, input: AuditInput) =>
  Effect.gen(function* () {
    const store = yield* Store
    const self = yield* Self
    const config = yield* MockConfig
    const keys = yield* PlatformKeys
    const orders = yield* Orders
    const events = yield* MockEvents
    const merchant = yield* store.getMerchant(appKey)
    if (Option.isNone(merchant)) return yield* Effect.fail(notFound(`no merchant ${appKey}`))
    const target = input.url ?? merchant.value.notifyUrl
    if (target === null)
      return yield* Effect.fail(paramError("url: the merchant has no notify URL; give the URL to audit"))
    const checked = checkNotifyUrl(target, self)
    if (!checked.ok) return yield* Effect.fail(paramError(checked.message.replace(/^notifyUrl/, "url")))
    const order = yield* input.orderSn === undefined
      ? Effect.gen(function* () {
          // An order of the audit's own, paid without a delivery: the audit sends its callbacks itself.
          const nowMs = Date.now()
          const created = yield* Step.toEffect(
            orders.create(appKey, { orderId: `audit-${randomUUID()}`, amount: "10.00", currency: "USD" }, nowMs)
          )
          return yield* store
            .moveOrder(created.result.orderSn, "PAID", Date.now(), () => undefined)
            .pipe(
              // Just created by this very audit: nothing else can have moved or removed it.
              Effect.catchTags({ NotFound: Effect.die, AlreadyFinal: Effect.die })
            )
        })
      : Effect.flatMap(store.getOrder(input.orderSn), (found) =>
          Option.isNone(found)
            ? Effect.fail(notFound(`no order ${input.orderSn}`))
            : found.value.appKey !== appKey
              ? Effect.fail(paramError(`orderSn: order ${input.orderSn} belongs to another merchant`))
              : Effect.succeed(found.value)
        )
    const key = yield* keys.current
    const setup: CallbackAudit.AuditSetup = {
      url: checked.url.href,
      environment: config.environment,
      appKey,
      order: {
        orderSn: order.orderSn,
        outerOrder: order.outerOrder,
        amount: order.amount,
        currency: order.currency,
        // An order still open is described as paid: the callbacks of an open order do not exist.
        status: order.status === "CREATED" ? "PAID" : order.status,
        createdAt: order.createdAt,
        updatedAt: order.updatedAt
      },
      platformSigner: key.signer,
      keyVersion: key.version,
      wrongSigner: yield* Effect.promise(wrongSigner)
    }
    return yield* Effect.promise(() =>
      CallbackAudit.run(setup, httpSend(checked.url, self), {
        timeoutMs: config.callbackTimeoutMs,
        onCheck: (check) => events.publishNow({ type: "audit.check", appKey, url: setup.url, check })
      })
    )
  })
