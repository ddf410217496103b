/**
 * Delivers callbacks (CONTRACT.md "Callbacks"). Deliveries are rows written with the order's move,
 * so this loop only reads what is due: each attempt gets a fresh timestamp and signature from the
 * current platform key, a per-attempt timeout, and on failure an exponential backoff with jitter,
 * until the merchant answers 2xx or the deliveries' time runs out. After a restart the loop simply
 * finds the pending rows again. The same loop expires orders past their time to live.
 */
import { Canonical, Headers } from "@pc/core"
import { Clock, Context, Duration, Effect, FiberSet, Layer, Queue, Random } from "effect"
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import { MockConfig } from "../Config.js"
import { eventPublisher } from "../events/MockEvents.js"
import { isoTime } from "../IsoTime.js"
import { Orders } from "../orders/Orders.js"
import type { Delivery } from "../store/DeliveryStore.js"
import { Store } from "../store/Store.js"
import { pointsAtSelf, Self } from "../UrlRule.js"
import { PlatformKeys } from "./PlatformKeys.js"

const EXCERPT = 200
/** How much of a merchant's answer is read: enough for the excerpt, never a whole large body. */
const ANSWER_PREFIX_BYTES = 1024
const LEASE_MARGIN_MS = 1000
/**
 * Attempts in flight at most. Setting a notify URL makes a whole backlog due at once: it is sent
 * this many at a time, not as hundreds of simultaneous requests to one merchant.
 */
export const MAX_IN_FLIGHT = 16

/**
 * Attempts in flight at most for one merchant, inside {@link MAX_IN_FLIGHT}: a merchant whose
 * endpoint hangs holds at most this many slots, and the others stay free for every other merchant
 * (CONTRACT.md: the dispatcher's capacity is shared fairly between merchants). The store hands
 * out due deliveries in turns between merchants, so a backlog does not hide the others either.
 */
export const MAX_IN_FLIGHT_PER_MERCHANT = 4

/** The first `max` bytes (about) of a response body as text; the rest is never downloaded. */
const readPrefix = (response: IncomingMessage, max: number): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const done = () => {
      response.off("data", onData)
      resolve(new TextDecoder().decode(Buffer.concat(chunks).subarray(0, max)))
    }
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      // Enough read: the rest is dropped with the connection rather than downloaded.
      if (size >= max) {
        response.destroy()
        done()
      }
    }
    response.on("data", onData)
    response.once("end", done)
    // A body cut off (or timed out) after the status line: the status is what counts.
    response.once("error", done)
    response.once("close", done)
  })

/** The delay before attempt `n + 1` after `n` failed attempts: doubling from `baseMs`, +-25% jitter. */
export const backoffDelay = (baseMs: number, failedAttempts: number, random: number): number =>
  Math.round(baseMs * 2 ** Math.max(0, failedAttempts - 1) * (0.75 + random * 0.5))

const NO_NOTIFY_URL = "merchant has no notifyUrl yet; retried with backoff, and at once when it is set"
const SELF_NOTIFY_URL = "not sent: the notifyUrl points at this mock itself; set the merchant's own receiver"

export const make = Effect.gen(function* () {
  const config = yield* MockConfig
  const store = yield* Store
  const keys = yield* PlatformKeys
  const orders = yield* Orders
  const publish = yield* eventPublisher
  const inFlight = new Set<string>()
  const inFlightByMerchant = new Map<string, number>()
  const self = yield* Self
  const fibers = yield* FiberSet.make()

  /** After failed attempt number `failed`: the next one after the backoff, or failed once the deliveries' time is up. */
  const nextAfterFailure = (delivery: Delivery, failed: number, nowMs: number, random: number) => {
    const nextAttemptAtMs = nowMs + backoffDelay(config.callbackBackoffMs, failed, random)
    return nextAttemptAtMs > delivery.createdAtMs + config.callbackMaxAgeMs
      ? ({ status: "failed" } as const)
      : ({ status: "pending", nextAttemptAtMs } as const)
  }

  // Keep-alive agents: consecutive callbacks to one endpoint reuse a connection instead of a TCP
  // (and TLS) handshake each; at most as many sockets per endpoint as attempts may run at once.
  const agents = yield* Effect.acquireRelease(
    Effect.sync(() => ({
      http: new HttpAgent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT }),
      https: new HttpsAgent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT })
    })),
    (made) =>
      Effect.sync(() => {
        made.http.destroy()
        made.https.destroy()
      })
  )

  /**
   * POSTs a callback and reads the status and the start of the answer within the attempt's time.
   * Redirects are not followed (CONTRACT.md: a 3xx is a failed attempt): node:http never does.
   */
  const post = (url: string, headers: Record<string, string>, body: string) =>
    Effect.async<{ readonly status: number; readonly excerpt: string }, string>((resume) => {
      const target = new URL(url)
      const secure = target.protocol === "https:"
      const payload = Buffer.from(body, "utf8")
      let settled = false
      let response: IncomingMessage | undefined
      const settle = (outcome: Effect.Effect<{ readonly status: number; readonly excerpt: string }, string>) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(outcome)
      }
      const request = (secure ? httpsRequest : httpRequest)(target, {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        headers: { ...headers, "content-length": String(payload.length) }
      })
      const timer = setTimeout(() => {
        // Once the status line is in, the status counts and the body read so far is the excerpt.
        if (response !== undefined) response.destroy()
        else {
          settle(Effect.fail(`no answer within ${config.callbackTimeoutMs} ms`))
          request.destroy()
        }
      }, config.callbackTimeoutMs)
      request.once("response", (answer) => {
        response = answer
        void readPrefix(answer, ANSWER_PREFIX_BYTES).then((text) =>
          settle(Effect.succeed({ status: answer.statusCode ?? 0, excerpt: text.slice(0, EXCERPT) }))
        )
      })
      request.on("error", (cause) => {
        if (response === undefined) settle(Effect.fail(`request failed: ${cause.message}`))
      })
      request.end(payload)
      return Effect.sync(() => {
        clearTimeout(timer)
        request.destroy()
      })
    })

  /** One attempt of a delivery leased until `leasedUntilMs` (see `Store.lease`). */
  const attempt = (delivery: Delivery, leasedUntilMs: number) =>
    Effect.gen(function* () {
      // First, before the clock is read: just after a new environment's start the key may still be
      // in the making (PlatformKeys), and that wait is neither the attempt's time nor its timestamp.
      const key = yield* keys.current
      const startedMs = yield* Clock.currentTimeMillis
      const at = isoTime(startedMs)
      const url = yield* store.notifyUrlOf(delivery.appKey)
      // A URL stored before this run may name this very mock now (another port or public URL):
      // sending there would run one of its own routes, so it is refused like an unset one.
      const refusal = url === null ? NO_NOTIFY_URL : pointsAtSelf(new URL(url), self) ? SELF_NOTIFY_URL : undefined
      if (refusal !== undefined || url === null) {
        // Nothing to send: a failed attempt like any other, retried with the same backoff, and
        // made due at once when the merchant sets its notify URL (see Store.setNotifyUrl).
        yield* store.recordAttempt(
          delivery,
          leasedUntilMs,
          { at, url, httpStatus: null, error: refusal ?? NO_NOTIFY_URL, keyVersion: null, durationMs: 0 },
          nextAfterFailure(delivery, delivery.attemptCount + 1, startedMs, yield* Random.next)
        )
        return
      }
      // A fresh timestamp and signature on every attempt: a retried callback is never stale.
      const timestamp = String(startedMs)
      const signature = yield* Effect.promise(() =>
        key.signer.sign(Canonical.callbackStringToSign({ appKey: delivery.appKey, timestamp, body: delivery.body }))
      )
      const headers = {
        "content-type": "application/json",
        [Headers.CallbackHeaders.timestamp]: timestamp,
        [Headers.CallbackHeaders.signature]: signature,
        [Headers.CallbackHeaders.keyVersion]: String(key.version)
      }
      // Recorded before it is sent, with exactly what is sent: an attempt cut short by a crash still
      // shows (CONTRACT.md), and the dashboard can show and verify what the merchant received.
      const number = yield* store.beginAttempt(delivery.id, {
        at,
        url,
        keyVersion: key.version,
        requestHeaders: headers,
        requestBody: delivery.body
      })
      const sentMs = yield* Clock.currentTimeMillis
      const result = yield* Effect.either(post(url, headers, delivery.body))
      const endedMs = yield* Clock.currentTimeMillis
      // The latency the merchant's endpoint caused: from sending until its answer (or the error).
      const durationMs = endedMs - sentMs
      const httpStatus = result._tag === "Right" ? result.right.status : null
      const delivered = httpStatus !== null && httpStatus >= 200 && httpStatus < 300
      const error = delivered
        ? null
        : result._tag === "Left"
          ? result.left
          : `merchant answered HTTP ${httpStatus}${result.right.excerpt ? `: ${result.right.excerpt}` : ""}`
      const failed = number
      const next = delivered
        ? ({ status: "delivered" } as const)
        : nextAfterFailure(delivery, number, endedMs, yield* Random.next)
      yield* store.recordAttempt(
        delivery,
        leasedUntilMs,
        { at, url, httpStatus, error, keyVersion: key.version, durationMs },
        next,
        number
      )
      yield* Effect.logInfo(delivered ? "callback delivered" : "callback attempt failed").pipe(
        Effect.annotateLogs({
          deliveryId: delivery.id,
          orderSn: delivery.orderSn,
          attempt: failed,
          httpStatus: httpStatus ?? "none",
          durationMs,
          ...(error === null ? {} : { error }),
          next: next.status === "pending" ? isoTime(next.nextAttemptAtMs) : next.status
        })
      )
    })

  const wake = yield* Queue.sliding<void>(1)
  /** When the sleeping loop wakes up by itself; -Infinity while it is working. */
  let sleepingUntil = Number.NEGATIVE_INFINITY

  const tick = Effect.gen(function* () {
    const nowMs = yield* Clock.currentTimeMillis
    for (const orderSn of yield* store.dueOrders(nowMs)) {
      yield* orders.move(orderSn, "EXPIRED").pipe(Effect.catchTag("ApiError", () => Effect.void))
    }
    // Claim (lease) due rows for the attempt's length: while it runs a row is not due (so this loop
    // does not spin, and no other replica on a shared database takes it), and if the process dies
    // mid-attempt the row is due again once the lease ends. Only the lease that took the row
    // attempts it; the lease value also tells the attempt's record whether a resend came in meanwhile.
    const leasedUntilMs = nowMs + config.callbackTimeoutMs + LEASE_MARGIN_MS
    const room = MAX_IN_FLIGHT - inFlight.size
    const busy = [...inFlightByMerchant].flatMap(([appKey, n]) => (n >= MAX_IN_FLIGHT_PER_MERCHANT ? [appKey] : []))
    const claimed =
      room > 0
        ? yield* store.claimDue(nowMs, leasedUntilMs, {
            limit: room,
            perMerchant: MAX_IN_FLIGHT_PER_MERCHANT,
            exclude: [...inFlight],
            busy
          })
        : []
    // A merchant with some attempts in flight may have been given more than its remaining slots.
    const extra: Array<string> = []
    for (const delivery of claimed) {
      const merchantInFlight = inFlightByMerchant.get(delivery.appKey) ?? 0
      if (merchantInFlight >= MAX_IN_FLIGHT_PER_MERCHANT) {
        extra.push(delivery.id)
        continue
      }
      inFlight.add(delivery.id)
      inFlightByMerchant.set(delivery.appKey, merchantInFlight + 1)
      yield* FiberSet.run(
        fibers,
        attempt(delivery, leasedUntilMs).pipe(
          Effect.zipRight(
            publish({
              type: "delivery.attempted",
              deliveryId: delivery.id,
              orderSn: delivery.orderSn,
              eventType: delivery.eventType
            })
          ),
          Effect.catchAllCause((cause) => Effect.logError("callback attempt crashed", cause)),
          Effect.ensuring(
            Effect.sync(() => {
              inFlight.delete(delivery.id)
              const left = (inFlightByMerchant.get(delivery.appKey) ?? 1) - 1
              if (left <= 0) inFlightByMerchant.delete(delivery.appKey)
              else inFlightByMerchant.set(delivery.appKey, left)
            })
          ),
          Effect.ensuring(wake.offer(undefined))
        )
      )
    }
    yield* store.release(extra, leasedUntilMs, nowMs)
    // What is due now but was not started waits for an attempt to end (each end wakes the loop),
    // and new work from this process wakes it too (a move, a resend, a notify URL): the timer is
    // only for what falls due later (a retry's backoff, an order's expiry, a lease running out),
    // and at most callbackPollMs for what only the database knows (another replica's moves).
    const soonest = Math.min(
      (yield* store.nextDeliveryAt(nowMs)) ?? Number.POSITIVE_INFINITY,
      (yield* store.nextExpiry) ?? Number.POSITIVE_INFINITY
    )
    const before = yield* Clock.currentTimeMillis
    const waitMs = Math.max(0, Math.min(config.callbackPollMs, soonest - before))
    sleepingUntil = before + waitMs
    yield* Effect.race(wake.take, Effect.sleep(Duration.millis(waitMs)))
    sleepingUntil = Number.NEGATIVE_INFINITY
  }).pipe(
    // A failed tick (the database gone for a moment) is tried again after a pause, not in a hot loop.
    Effect.catchAllCause((cause) =>
      Effect.zipRight(
        Effect.logError("dispatcher tick failed", cause),
        Effect.sleep(Duration.millis(config.callbackPollMs))
      )
    )
  )

  yield* Effect.forkScoped(Effect.forever(tick))
  // A create falls due at its expiry, usually long after the loop's next wake-up: waking the loop
  // (four queries) on every create would be most of a create's cost, so only earlier work wakes it.
  // While the loop works (sleepingUntil is -Infinity) any change wakes it again, so that nothing
  // committed after its queries waits for the next full second.
  yield* orders.onChange((dueAtMs) =>
    dueAtMs < sleepingUntil || sleepingUntil === Number.NEGATIVE_INFINITY ? wake.offer(undefined) : Effect.void
  )

  return {
    /** Wakes the loop: something may be due now. */
    wake: wake.offer(undefined),
    /** Queues a delivery again now (the developer menu's resend). */
    resend: (id: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (nowMs) => store.resend(id, nowMs)).pipe(
        Effect.tap(() => wake.offer(undefined))
      )
  }
})

export class Dispatcher extends Context.Tag("mock-server/Dispatcher")<
  Dispatcher,
  Effect.Effect.Success<typeof make>
>() {
  static readonly layer = Layer.scoped(Dispatcher, make)
}
