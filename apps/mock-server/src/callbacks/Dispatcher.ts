/**
 * Delivers callbacks (CONTRACT.md "Callbacks"). Deliveries are rows written with the order's move,
 * so this loop only reads what is due: each attempt gets a fresh timestamp and signature from the
 * current platform key, a per-attempt timeout, and on failure an exponential backoff with jitter,
 * until the merchant answers 2xx or the deliveries' time runs out. After a restart the loop simply
 * finds the pending rows again. The same loop expires orders past their time to live.
 */
import { Canonical, Headers } from "@pc/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import { MockConfig } from "../config/Config.js"
import { eventPublisher } from "../events/MockEvents.js"
import { isoTime } from "../store/IsoTime.js"
import { Orders } from "../domain/orders/Orders.js"
import type { AttemptOutcome, ClaimedDelivery } from "../store/DeliveryStore.js"
import { Store } from "../store/Store.js"
import { pointsAtSelf, Self } from "../config/UrlRule.js"
import {
  type AnsweredAttempt,
  fastAnswerMs,
  MAX_IN_FLIGHT_PER_MERCHANT,
  makeEndpointSpeeds,
  START_IN_FLIGHT_PER_MERCHANT
} from "./EndpointSpeeds.js"
import { PlatformKeys } from "./PlatformKeys.js"
import type { Delivery } from "../store/Records.js"

const EXCERPT = 200
/** How much of a merchant's answer is read: enough for the excerpt, never a whole large body. */
const ANSWER_PREFIX_BYTES = 1024
const LEASE_MARGIN_MS = 1000
/**
 * Attempts in flight at most. Setting a notify URL makes a whole backlog due at once: it is sent
 * at most this many at a time, not as thousands of simultaneous requests.
 */
export const MAX_IN_FLIGHT = 128

/**
 * Merchants with the raised limit at a time at most (EndpointSpeeds.ts): together they have at
 * most half the room, so endpoints that answered fast and then hang leave the other half free for
 * everyone else until their attempts time out.
 */
const MAX_FAST_MERCHANTS = MAX_IN_FLIGHT / 2 / MAX_IN_FLIGHT_PER_MERCHANT

/** How long an ended attempt's outcome may wait for others to be recorded with it (ms). */
const RECORD_WAIT_MS = 50

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

/** What a POST of a callback came to: the merchant's status and the start of its answer, or why there is none. */
type PostResult = { readonly status: number; readonly excerpt: string } | { readonly error: string }

/** An attempt that ended, before its delivery's next state is drawn (the backoff's jitter) and recorded. */
interface EndedAttempt {
  readonly delivery: Delivery
  /** The lease the attempt ran under. */
  readonly leasedUntilMs: number
  readonly attempt: AttemptOutcome["attempt"]
  /** Whether the merchant answered 2xx. */
  readonly delivered: boolean
  /** How many attempts have failed if this one did (the backoff's exponent). */
  readonly failed: number
  readonly endedMs: number
  /** The number the attempt was begun with; absent for one never begun (nothing sent). */
  readonly begun?: number | undefined
}

const NO_NOTIFY_URL = "merchant has no notifyUrl yet; retried with backoff, and at once when it is set"
const SELF_NOTIFY_URL = "not sent: the notifyUrl points at this mock itself; set the merchant's own receiver"

export const make = Effect.gen(function* () {
  const config = yield* MockConfig
  const store = yield* Store
  const keys = yield* PlatformKeys
  const orders = yield* Orders
  const publish = yield* eventPublisher
  const self = yield* Self
  const fibers = yield* FiberSet.make()
  const clock = yield* Effect.clock

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

  /** Attempts in flight in this process: their deliveries, and how many each merchant has. */
  const inFlight = new Set<string>()
  const inFlightByMerchant = new Map<string, number>()
  /** How many attempts each merchant may have in flight, by how fast its endpoint answers. */
  const speeds = makeEndpointSpeeds({ fastMs: fastAnswerMs(config.callbackTimeoutMs), maxFast: MAX_FAST_MERCHANTS })
  /** Attempts that ended, whose outcomes the loop records next, all in one transaction. */
  let ended: Array<EndedAttempt> = []
  /** When the oldest of them ended. */
  let endedSinceMs = Number.POSITIVE_INFINITY

  /** Frees an attempt's slot (its outcome recorded, or never to be). */
  const free = (delivery: Delivery) => {
    inFlight.delete(delivery.id)
    const left = (inFlightByMerchant.get(delivery.appKey) ?? 1) - 1
    if (left <= 0) inFlightByMerchant.delete(delivery.appKey)
    else inFlightByMerchant.set(delivery.appKey, left)
  }

  /** Ends the loop's sleep now, or (while it works) the next one at once. */
  let waker: (() => void) | undefined
  /** A wake-up that came while the loop was working. */
  let woken = false
  const wakeNow = () => {
    if (waker !== undefined) waker()
    else woken = true
  }
  const wake = Effect.sync(wakeNow)
  /**
   * The loop's sleep: until `ms` pass or something wakes it. One native timer and no fiber of its
   * own: the loop sleeps between most claims, and a race of two fibers per sleep was a sizeable
   * part of a callback's CPU.
   */
  const sleep = (ms: number) =>
    Effect.async<void>((resume) => {
      if (woken) {
        woken = false
        return resume(Effect.void)
      }
      const timer = setTimeout(() => {
        waker = undefined
        resume(Effect.void)
      }, ms)
      waker = () => {
        waker = undefined
        clearTimeout(timer)
        resume(Effect.void)
      }
      return Effect.sync(() => {
        waker = undefined
        clearTimeout(timer)
      })
    })
  /** An attempt ended: it waits for the loop, which it wakes, to be recorded. */
  const settle = (outcome: EndedAttempt) => {
    if (ended.length === 0) endedSinceMs = clock.unsafeCurrentTimeMillis()
    ended.push(outcome)
    wakeNow()
  }

  /**
   * POSTs a callback and calls `done` once with the status and the start of the answer, or why
   * there is none, within the attempt's time; returns a function that cancels it (`done` is then
   * not called). Plain node:http callbacks, no fiber per attempt: a backlog's attempts cost what
   * the request costs. Redirects are not followed (CONTRACT.md: a 3xx is a failed attempt):
   * node:http never does.
   */
  const post = (url: string, headers: Record<string, string>, body: string, done: (result: PostResult) => void) => {
    const target = new URL(url)
    const secure = target.protocol === "https:"
    const payload = Buffer.from(body, "utf8")
    let settled = false
    let response: IncomingMessage | undefined
    const finish = (result: PostResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      done(result)
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
        finish({ error: `no answer within ${config.callbackTimeoutMs} ms` })
        request.destroy()
      }
    }, config.callbackTimeoutMs)
    request.once("response", (answer) => {
      response = answer
      void readPrefix(answer, ANSWER_PREFIX_BYTES).then((text) =>
        finish({ status: answer.statusCode ?? 0, excerpt: text.slice(0, EXCERPT) })
      )
    })
    request.on("error", (cause) => {
      if (response === undefined) finish({ error: `request failed: ${cause.message}` })
    })
    request.end(payload)
    return () => {
      settled = true
      clearTimeout(timer)
      request.destroy()
    }
  }

  /** Cancels of the attempts on the wire, by delivery: a stop cuts them off (their rows stay leased). */
  const onTheWire = new Map<string, () => void>()
  /** Set by the stop: nothing more is sent. */
  let stopping = false

  /** Sends one signed, begun attempt; its outcome is settled when the answer (or the error) comes. */
  const send = (
    delivery: Delivery,
    leasedUntilMs: number,
    sent: { readonly at: string; readonly url: string; readonly keyVersion: number; readonly number: number },
    headers: Record<string, string>
  ) => {
    if (stopping) return
    const sentMs = clock.unsafeCurrentTimeMillis()
    const cancel = post(sent.url, headers, delivery.body, (result) => {
      onTheWire.delete(delivery.id)
      const endedMs = clock.unsafeCurrentTimeMillis()
      const httpStatus = "status" in result ? result.status : null
      const delivered = httpStatus !== null && httpStatus >= 200 && httpStatus < 300
      const error = delivered
        ? null
        : "error" in result
          ? result.error
          : `merchant answered HTTP ${httpStatus}${result.excerpt ? `: ${result.excerpt}` : ""}`
      settle({
        delivery,
        leasedUntilMs,
        // The latency the merchant's endpoint caused: from sending until its answer (or the error).
        attempt: {
          at: sent.at,
          url: sent.url,
          httpStatus,
          error,
          keyVersion: sent.keyVersion,
          durationMs: endedMs - sentMs
        },
        delivered,
        failed: sent.number,
        endedMs,
        begun: sent.number
      })
    })
    onTheWire.set(delivery.id, cancel)
    speeds.sent(delivery.id, delivery.appKey, sent.url, sentMs)
  }

  /**
   * One attempt of each delivery of a claim, leased until `leasedUntilMs` (see `Store.claimDue`):
   * signed (on the thread pool, all at once), recorded as begun in one transaction before any is
   * sent (CONTRACT.md), then sent side by side; each outcome is settled as it comes, after this
   * effect has ended.
   */
  const attempt = (claimed: ReadonlyArray<ClaimedDelivery>, leasedUntilMs: number) =>
    Effect.gen(function* () {
      // First, before the clock is read: just after a new environment's start the key may still be
      // in the making (PlatformKeys), and that wait is neither the attempt's time nor its timestamp.
      const key = yield* keys.current
      const startedMs = yield* Clock.currentTimeMillis
      const at = isoTime(startedMs)
      // A fresh timestamp and signature on every attempt: a retried callback is never stale.
      const timestamp = String(startedMs)
      const sendable: Array<{ readonly delivery: ClaimedDelivery; readonly url: string }> = []
      for (const delivery of claimed) {
        const url = delivery.notifyUrl
        // A URL stored before this run may name this very mock now (another port or public URL):
        // sending there would run one of its own routes, so it is refused like an unset one.
        const refusal = url === null ? NO_NOTIFY_URL : pointsAtSelf(new URL(url), self) ? SELF_NOTIFY_URL : undefined
        if (refusal === undefined && url !== null) {
          sendable.push({ delivery, url })
          continue
        }
        // Nothing to send: a failed attempt like any other, retried with the same backoff, and
        // made due at once when the merchant sets its notify URL (see Store.setNotifyUrl).
        settle({
          delivery,
          leasedUntilMs,
          attempt: { at, url, httpStatus: null, error: refusal ?? NO_NOTIFY_URL, keyVersion: null, durationMs: 0 },
          delivered: false,
          failed: delivery.attemptCount + 1,
          endedMs: startedMs
        })
      }
      if (sendable.length === 0) return
      // All on the thread pool at once, awaited together (one fiber, not one per signature).
      const signatures = yield* Effect.promise(() =>
        Promise.all(
          sendable.map(({ delivery }) =>
            key.signer.sign(Canonical.callbackStringToSign({ appKey: delivery.appKey, timestamp, body: delivery.body }))
          )
        )
      )
      const signed = sendable.map(({ delivery, url }, i) => ({
        delivery,
        url,
        headers: {
          "content-type": "application/json",
          [Headers.CallbackHeaders.timestamp]: timestamp,
          [Headers.CallbackHeaders.signature]: signatures[i]!,
          [Headers.CallbackHeaders.keyVersion]: String(key.version)
        }
      }))
      // Recorded before they are sent, with exactly what is sent: an attempt cut short by a crash
      // still shows (CONTRACT.md), and the dashboard can show and verify what the merchant received.
      const numbers = yield* store.beginAttempts(
        signed.map(({ delivery, url, headers }) => ({
          deliveryId: delivery.id,
          at,
          url,
          keyVersion: key.version,
          requestHeaders: headers,
          requestBody: delivery.body
        }))
      )
      signed.forEach(({ delivery, url, headers }, i) => {
        send(delivery, leasedUntilMs, { at, url, keyVersion: key.version, number: numbers[i]! }, headers)
      })
    })

  /** When the earliest delivery not due yet falls due, as last read or since learned; -Infinity: read again. */
  let deliveriesDueAt = Number.NEGATIVE_INFINITY
  /** When the earliest open order expires, likewise. */
  let expiriesDueAt = Number.NEGATIVE_INFINITY
  /** When the loop last read both from the database. */
  let readAt = Number.NEGATIVE_INFINITY
  /** When the sleeping loop wakes up by itself; -Infinity while it is working. */
  let sleepingUntil = Number.NEGATIVE_INFINITY

  /**
   * Records the outcomes of the attempts that ended since the last time, in one transaction, and
   * frees their slots. If that fails the slots are freed anyway: the rows stay leased, and are due
   * again (and attempted again) when the lease ends.
   */
  const recordEnded = Effect.suspend(() => {
    if (ended.length === 0) return Effect.void
    // A copy: attempts that end while this batch is written join the next one.
    const endedNow = ended.slice()
    return Effect.flatMap(
      Effect.forEach(endedNow, (one) =>
        one.delivered
          ? Effect.succeed(outcomeOf(one, { status: "delivered" }))
          : Effect.map(Random.next, (random) =>
              outcomeOf(one, nextAfterFailure(one.delivery, one.failed, one.endedMs, random))
            )
      ),
      (batch) => recordOutcomes(endedNow, batch)
    )
  })
  /** An ended attempt with its delivery's next state, as the store records it. */
  const outcomeOf = (one: EndedAttempt, next: AttemptOutcome["next"]): AttemptOutcome => ({
    delivery: one.delivery,
    leasedUntilMs: one.leasedUntilMs,
    attempt: one.attempt,
    next,
    begun: one.begun
  })
  /** Records `batch` (the outcomes of `endedNow`), frees their slots, then logs and publishes each. */
  const recordOutcomes = (endedNow: ReadonlyArray<EndedAttempt>, batch: ReadonlyArray<AttemptOutcome>) =>
    store.recordAttempts(batch).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          ended = ended.filter((one) => !endedNow.includes(one))
          if (ended.length === 0) endedSinceMs = Number.POSITIVE_INFINITY
          // What was sent says how fast its endpoint is; an attempt never sent (no notify URL) says nothing.
          const answered: Array<AnsweredAttempt> = []
          for (const { delivery, attempt, next, begun } of batch) {
            if (begun === undefined || attempt.url === null) continue
            answered.push({
              deliveryId: delivery.id,
              appKey: delivery.appKey,
              url: attempt.url,
              delivered: next.status === "delivered",
              durationMs: attempt.durationMs
            })
          }
          speeds.learn(answered, clock.unsafeCurrentTimeMillis())
          for (const outcome of batch) {
            free(outcome.delivery)
            const { appKey } = outcome.delivery
            if (roomFilled || saturated.has(appKey)) claimNeeded = true
            if (outcome.next.status === "pending")
              deliveriesDueAt = Math.min(deliveriesDueAt, outcome.next.nextAttemptAtMs)
          }
        })
      ),
      Effect.zipRight(
        Effect.forEach(
          batch,
          ({ delivery, attempt, next, begun }) =>
            Effect.zipRight(
              Effect.logInfo(next.status === "delivered" ? "callback delivered" : "callback attempt failed").pipe(
                Effect.annotateLogs({
                  deliveryId: delivery.id,
                  orderSn: delivery.orderSn,
                  attempt: begun ?? delivery.attemptCount + 1,
                  httpStatus: attempt.httpStatus ?? "none",
                  durationMs: attempt.durationMs,
                  ...(attempt.error === null ? {} : { error: attempt.error }),
                  next: next.status === "pending" ? isoTime(next.nextAttemptAtMs) : next.status
                })
              ),
              publish({
                type: "delivery.attempted",
                deliveryId: delivery.id,
                orderSn: delivery.orderSn,
                eventType: delivery.eventType
              })
            ),
          { discard: true }
        )
      )
    )
  /**
   * Whether the outcomes that ended are recorded now, or wait (at most {@link RECORD_WAIT_MS}) for
   * the attempts still in flight to end too and be recorded with them: now when nothing else is
   * in flight; when a busy merchant has a batch of slots free again (EndpointSpeeds.batchOf: with
   * batches of 2 of 4 slots, each claim and its two transactions served half as many callbacks,
   * and a backlog's main-thread CPU per callback was 1.5 times as much for no more callbacks a
   * second); or, when the last claim left others waiting for room, once a new merchant's batch of
   * room is free.
   */
  const recordNow = (nowMs: number) => {
    if (ended.length === 0) return false
    if (ended.length >= inFlight.size || nowMs - endedSinceMs >= RECORD_WAIT_MS) return true
    if (roomFilled && ended.length >= START_IN_FLIGHT_PER_MERCHANT) return true
    const ending = new Map<string, number>()
    for (const { delivery } of ended) ending.set(delivery.appKey, (ending.get(delivery.appKey) ?? 0) + 1)
    for (const [appKey, count] of ending) {
      const slots = speeds.limitOf(appKey, nowMs) - (inFlightByMerchant.get(appKey) ?? 0) + count
      if (saturated.has(appKey) && slots >= speeds.batchOf(appKey, nowMs)) return true
    }
    return false
  }

  // Outcomes that ended just before a stop are recorded on the way out; attempts still on the wire
  // are cut off first (their rows stay leased, their attempts show no outcome, as after a crash).
  yield* Effect.addFinalizer(() =>
    Effect.zipRight(
      Effect.sync(() => {
        stopping = true
        for (const [id, cancel] of onTheWire) {
          cancel()
          speeds.dropped(id)
        }
        onTheWire.clear()
      }),
      Effect.ignore(recordEnded)
    )
  )

  /**
   * Whether a claim may find something the last one did not: new work from this process, a
   * retry or lease falling due, or a slot freed for a merchant the last claims left with more due
   * rows. Without one of those a claim would come back empty, and it is skipped.
   */
  let claimNeeded = true
  /** Merchants whose last claim took all the slots they had: they may have more rows due. */
  const saturated = new Set<string>()
  /** Whether the last claim took all the room there was: anyone may have more rows due. */
  let roomFilled = false

  /** Claims due rows for the free slots, each merchant's less those it has in flight. */
  const claim = (nowMs: number, leasedUntilMs: number, room: number) =>
    Effect.gen(function* () {
      claimNeeded = false
      const claimed = yield* store.claimDue(nowMs, leasedUntilMs, {
        limit: room,
        perMerchant: START_IN_FLIGHT_PER_MERCHANT,
        // Read now, not at the tick's start: an attempt's time on the wire is measured to this moment.
        limits: speeds.limits(clock.unsafeCurrentTimeMillis()),
        exclude: [...inFlight],
        inFlight: inFlightByMerchant
      })
      const claimedBy = new Map<string, number>()
      for (const delivery of claimed) claimedBy.set(delivery.appKey, (claimedBy.get(delivery.appKey) ?? 0) + 1)
      roomFilled = claimed.length >= room
      for (const appKey of [...saturated, ...claimedBy.keys()]) {
        const slots = speeds.limitOf(appKey, nowMs) - (inFlightByMerchant.get(appKey) ?? 0)
        if ((claimedBy.get(appKey) ?? 0) >= slots) saturated.add(appKey)
        else saturated.delete(appKey)
      }
      return claimed
    })

  const tick = Effect.gen(function* () {
    const nowMs = yield* Clock.currentTimeMillis
    if (recordNow(nowMs)) yield* recordEnded
    // What only the database knows (another replica's moves and retries) is read afresh at least
    // every callbackPollMs; in between the loop keeps what it read and what it did itself.
    if (nowMs - readAt >= config.callbackPollMs) {
      deliveriesDueAt = Number.NEGATIVE_INFINITY
      expiriesDueAt = Number.NEGATIVE_INFINITY
      readAt = nowMs
      claimNeeded = true
    }
    if (nowMs >= expiriesDueAt) {
      for (const orderSn of yield* store.dueOrders(nowMs)) {
        yield* orders.move(orderSn, "EXPIRED").pipe(Effect.catchTag("ApiError", () => Effect.void))
      }
      expiriesDueAt = (yield* store.nextExpiry) ?? Number.POSITIVE_INFINITY
    }
    // Claim (lease) due rows for the attempt's length: while it runs a row is not due (so this loop
    // does not spin, and no other replica on a shared database takes it), and if the process dies
    // mid-attempt the row is due again once the lease ends. Only the lease that took the row
    // attempts it; the lease value also tells the attempt's record whether a resend came in meanwhile.
    const leasedUntilMs = nowMs + config.callbackTimeoutMs + LEASE_MARGIN_MS
    const room = MAX_IN_FLIGHT - inFlight.size
    // A retry or a lease that fell due since the last claim is claimable now.
    if (nowMs >= deliveriesDueAt) claimNeeded = true
    const claimed = room > 0 && claimNeeded ? yield* claim(nowMs, leasedUntilMs, room) : []
    if (claimed.length > 0) {
      for (const delivery of claimed) {
        inFlight.add(delivery.id)
        inFlightByMerchant.set(delivery.appKey, (inFlightByMerchant.get(delivery.appKey) ?? 0) + 1)
      }
      deliveriesDueAt = Math.min(deliveriesDueAt, leasedUntilMs)
      yield* FiberSet.run(
        fibers,
        attempt(claimed, leasedUntilMs).pipe(
          Effect.catchAllCause((cause) => Effect.logError("callback attempt crashed", cause)),
          // An attempt that was never sent and settled no outcome (it crashed) frees its slot
          // here; its row stays leased and is due again when the lease ends.
          Effect.ensuring(
            Effect.suspend(() => {
              const settled = new Set(ended.map((one) => one.delivery.id))
              const lost = claimed.filter(
                (delivery) => inFlight.has(delivery.id) && !settled.has(delivery.id) && !onTheWire.has(delivery.id)
              )
              if (lost.length === 0) return Effect.void
              for (const delivery of lost) free(delivery)
              claimNeeded = true
              return wake
            })
          )
        )
      )
    }
    // What is due now but was not started waits for an attempt to end (each end wakes the loop),
    // and new work from this process wakes it too (a move, a resend, a notify URL): the timer is
    // only for what falls due later (a retry's backoff, an order's expiry, a lease running out),
    // and at most callbackPollMs for what only the database knows (another replica's moves).
    if (nowMs >= deliveriesDueAt) deliveriesDueAt = (yield* store.nextDeliveryAt(nowMs)) ?? Number.POSITIVE_INFINITY
    const before = yield* Clock.currentTimeMillis
    const soonest = Math.min(
      readAt + config.callbackPollMs,
      deliveriesDueAt,
      expiriesDueAt,
      endedSinceMs + RECORD_WAIT_MS
    )
    const waitMs = Math.max(0, soonest - before)
    sleepingUntil = before + waitMs
    yield* sleep(waitMs)
    sleepingUntil = Number.NEGATIVE_INFINITY
  }).pipe(
    // A failed tick (the database gone for a moment) is tried again after a pause, not in a hot loop.
    Effect.catchAllCause((cause) =>
      Effect.zipRight(
        Effect.logError("dispatcher tick failed", cause).pipe(Effect.tap(() => (claimNeeded = true))),
        Effect.sleep(Duration.millis(config.callbackPollMs))
      )
    )
  )

  yield* Effect.forkScoped(Effect.forever(tick))
  // A create falls due at its expiry, usually long after the loop's next wake-up: waking the loop
  // (its queries) on every create would be most of a create's cost, so only earlier work wakes it.
  // While the loop works (sleepingUntil is -Infinity) any change wakes it again, so that nothing
  // committed after its queries waits for the next full second. Either way the loop's timers learn
  // the new time.
  yield* orders.onChange((dueAtMs, nowMs) => {
    // A move's callback is due now: a claim finds it. A create falls due at its expiry, later:
    // only the expiry timer learns of it (a move never makes the next expiry earlier). Plain, not an
    // Effect: a create calls it without a fiber, and only a wake-up needs one.
    if (dueAtMs <= nowMs) claimNeeded = true
    else expiriesDueAt = Math.min(expiriesDueAt, dueAtMs)
    return dueAtMs < sleepingUntil || sleepingUntil === Number.NEGATIVE_INFINITY ? wake : undefined
  })

  return {
    /** Wakes the loop: something may be due now. */
    wake: Effect.suspend(() => {
      claimNeeded = true
      return wake
    }),
    /**
     * A merchant's notify URL changed: its new endpoint starts at the start limit (it may be
     * slower than the one that was fast), and what waited for a URL is due now (Store.setNotifyUrl).
     */
    notifyUrlChanged: (appKey: string) =>
      Effect.suspend(() => {
        speeds.forget(appKey)
        claimNeeded = true
        return wake
      }),
    /** Queues a delivery again now (the developer menu's resend). */
    resend: (id: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (nowMs) => store.resend(id, nowMs)).pipe(
        Effect.tap(() => {
          claimNeeded = true
          return wake
        })
      )
  }
})

export class Dispatcher extends Context.Tag("mock-server/Dispatcher")<
  Dispatcher,
  Effect.Effect.Success<typeof make>
>() {
  /**
   * The service, made from what the caller's context holds (in its scope: what it starts stops with it):
   * main/Server.ts makes the mock's services one after another in one layer.
   *
   * @example
   * ```ts
   * const dispatcher = yield* Effect.provide(Dispatcher.make, context)
   * ```
   */
  static readonly make = make
  static readonly layer = Layer.scoped(Dispatcher, make)
}
