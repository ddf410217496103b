/**
 * Recording what attempts came to. An attempt that ends waits, briefly, for others to end too, so
 * that their outcomes are written in one transaction; each outcome then frees its slot, tells the
 * endpoint speeds what was learned, and is logged and published.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as LogLevel from "effect/LogLevel"
import * as Random from "effect/Random"
import type { MockEventInput } from "../events/MockEvents.js"
import { isoTime } from "../store/IsoTime.js"
import type { AttemptOutcome } from "../store/DeliveryStore.js"
import type { Delivery } from "../store/Records.js"
import type { StoreService } from "../store/Store.js"
import { type AnsweredAttempt, type EndpointSpeeds, START_IN_FLIGHT_PER_MERCHANT } from "./EndpointSpeeds.js"
import type { Leases } from "./Leases.js"
import type { Wakeup } from "./Wakeup.js"

/** How long an ended attempt's outcome may wait for others to be recorded with it (ms). */
export const RECORD_WAIT_MS = 50

/** An attempt that ended, before its delivery's next state is drawn (the backoff's jitter) and recorded. */
export interface EndedAttempt {
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

/**
 * The delay before attempt `n + 1` after `n` failed attempts: doubling from `baseMs`, +-25% jitter.
 *
 * @example
 * ```ts
 * backoffDelay(200, 2, 0.5) // 400
 * ```
 */
export const backoffDelay = (baseMs: number, failedAttempts: number, random: number): number =>
  Math.round(baseMs * 2 ** Math.max(0, failedAttempts - 1) * (0.75 + random * 0.5))

/**
 * After failed attempt number `failed`: the next one after the backoff, or failed once the
 * deliveries' time (`maxAgeMs` from the delivery's creation) is up.
 *
 * @example
 * ```ts
 * nextAfterFailure(delivery, 1, nowMs, 0.5, { backoffMs: 200, maxAgeMs: 86_400_000 }) // { status: "pending", nextAttemptAtMs: nowMs + 200 }
 * ```
 */
export const nextAfterFailure = (
  delivery: Delivery,
  failed: number,
  nowMs: number,
  random: number,
  timing: { readonly backoffMs: number; readonly maxAgeMs: number }
): AttemptOutcome["next"] => {
  const nextAttemptAtMs = nowMs + backoffDelay(timing.backoffMs, failed, random)
  return nextAttemptAtMs > delivery.createdAtMs + timing.maxAgeMs
    ? { status: "failed" }
    : { status: "pending", nextAttemptAtMs }
}

/**
 * The attempts that ended and wait to be recorded, oldest first, and when the oldest ended.
 *
 * @example
 * ```ts
 * const ended = new EndedAttempts()
 * ended.add(one, nowMs)
 * const batch = ended.snapshot()
 * ended.remove(batch) // recorded
 * ```
 */
export class EndedAttempts {
  private waiting: Array<EndedAttempt> = []
  /** When the oldest waiting attempt ended; +Infinity when none waits. */
  sinceMs = Number.POSITIVE_INFINITY

  get size(): number {
    return this.waiting.length
  }

  /** An attempt ended at `nowMs`: it waits for the next batch. */
  add(one: EndedAttempt, nowMs: number): void {
    if (this.waiting.length === 0) this.sinceMs = nowMs
    this.waiting.push(one)
  }

  /** The attempts waiting now; those that end while they are written join the next batch. */
  snapshot(): ReadonlyArray<EndedAttempt> {
    return this.waiting.slice()
  }

  /** A batch is written (or given up): its attempts wait no more. */
  remove(batch: ReadonlyArray<EndedAttempt>): void {
    this.waiting = this.waiting.filter((one) => !batch.includes(one))
    if (this.waiting.length === 0) this.sinceMs = Number.POSITIVE_INFINITY
  }

  /** The deliveries whose attempts wait. */
  deliveryIds(): ReadonlySet<string> {
    return new Set(this.waiting.map((one) => one.delivery.id))
  }

  /** How many waiting attempts each merchant has. */
  perMerchant(): ReadonlyMap<string, number> {
    const counts = new Map<string, number>()
    for (const { delivery } of this.waiting) counts.set(delivery.appKey, (counts.get(delivery.appKey) ?? 0) + 1)
    return counts
  }
}

/**
 * Whether the outcomes that ended are recorded now, or wait (at most {@link RECORD_WAIT_MS}) for
 * the attempts still in flight to end too and be recorded with them: now when nothing else is in
 * flight; when a busy merchant has a batch of slots free again (EndpointSpeeds.batchOf: a claim and
 * its two transactions then serve a whole batch, not a part of one); or, when the last claim left
 * others waiting for room, once a new merchant's batch of room is free.
 *
 * @example
 * ```ts
 * if (recordNow(ended, leases, speeds, nowMs)) yield* recordEnded
 * ```
 */
export const recordNow = (ended: EndedAttempts, leases: Leases, speeds: EndpointSpeeds, nowMs: number): boolean => {
  if (ended.size === 0) return false
  if (ended.size >= leases.inFlight.size || nowMs - ended.sinceMs >= RECORD_WAIT_MS) return true
  if (leases.roomFilled && ended.size >= START_IN_FLIGHT_PER_MERCHANT) return true
  for (const [appKey, count] of ended.perMerchant()) {
    const slots = speeds.limitOf(appKey, nowMs) - (leases.byMerchant.get(appKey) ?? 0) + count
    if (leases.saturated.has(appKey) && slots >= speeds.batchOf(appKey, nowMs)) return true
  }
  return false
}

/**
 * Hands an attempt that ended at `nowMs` to the loop: it waits to be recorded, and wakes the loop
 * only when its batch is to be recorded now ({@link recordNow}: a lone attempt at once); else it
 * has the loop up within {@link RECORD_WAIT_MS}. Waking the loop on every end ran its turn once
 * per attempt, with 64 in flight most of the mock's work per batch, for outcomes it then left waiting.
 *
 * @example
 * ```ts
 * settle: (one) => settleEnded({ ended, leases, speeds, wakeup }, one, nowMs())
 * ```
 */
export const settleEnded = (
  deps: {
    readonly ended: EndedAttempts
    readonly leases: Leases
    readonly speeds: EndpointSpeeds
    readonly wakeup: Wakeup
  },
  one: EndedAttempt,
  nowMs: number
): void => {
  deps.ended.add(one, nowMs)
  if (recordNow(deps.ended, deps.leases, deps.speeds, nowMs)) deps.wakeup.wakeNow()
  else deps.wakeup.wakeBy(deps.ended.sinceMs + RECORD_WAIT_MS, nowMs)
}

/** An ended attempt with its delivery's next state, as the store records it. */
const outcomeOf = (one: EndedAttempt, next: AttemptOutcome["next"]): AttemptOutcome => ({
  delivery: one.delivery,
  leasedUntilMs: one.leasedUntilMs,
  attempt: one.attempt,
  next,
  begun: one.begun
})

/** What was sent says how fast its endpoint is; an attempt never sent (no notify URL) says nothing. */
const answeredOf = (batch: ReadonlyArray<AttemptOutcome>): Array<AnsweredAttempt> => {
  const answered: Array<AnsweredAttempt> = []
  for (const { attempt, begun, delivery, next } of batch) {
    if (begun === undefined || attempt.url === null) continue
    answered.push({
      deliveryId: delivery.id,
      appKey: delivery.appKey,
      url: attempt.url,
      delivered: next.status === "delivered",
      durationMs: attempt.durationMs
    })
  }
  return answered
}

/** What logs a line: the mock's loggers, called without a fiber (log/RequestLog.loggerOf). */
export type LineLogger = (
  level: LogLevel.LogLevel,
  message: string,
  annotations: Readonly<Record<string, unknown>>
) => void

/**
 * Logs and publishes one recorded outcome. Plain calls, not effects: the annotations of an
 * `Effect.logInfo` cost a fiber's work per outcome, and the event costs nothing while nobody
 * listens (MockEvents.publishNow).
 */
const announce = (log: LineLogger, publishNow: (event: MockEventInput) => void, outcome: AttemptOutcome): void => {
  const { attempt, begun, delivery, next } = outcome
  log(LogLevel.Info, next.status === "delivered" ? "callback delivered" : "callback attempt failed", {
    deliveryId: delivery.id,
    orderSn: delivery.orderSn,
    attempt: begun ?? delivery.attemptCount + 1,
    httpStatus: attempt.httpStatus ?? "none",
    durationMs: attempt.durationMs,
    ...(attempt.error === null ? {} : { error: attempt.error }),
    next: next.status === "pending" ? isoTime(next.nextAttemptAtMs) : next.status
  })
  publishNow({
    type: "delivery.attempted",
    deliveryId: delivery.id,
    orderSn: delivery.orderSn,
    eventType: delivery.eventType
  })
}

/**
 * The effect that records the outcomes of the attempts that ended since the last time, in one
 * transaction, and frees their slots. If that fails the slots are freed anyway: the rows stay
 * leased, and are due again (and attempted again) when the lease ends.
 *
 * @example
 * ```ts
 * const recordEnded = makeOutcomeRecorder({ store, speeds, leases, ended, log, publishNow, nowMs, timing })
 * ```
 */
export const makeOutcomeRecorder = (deps: {
  readonly store: StoreService
  readonly speeds: EndpointSpeeds
  readonly leases: Leases
  readonly ended: EndedAttempts
  /** Logs each outcome's line (log/RequestLog.loggerOf over the dispatcher's FiberRefs). */
  readonly log: LineLogger
  /** Publishes each outcome's event, from outside a fiber (MockEvents.publishNow). */
  readonly publishNow: (event: MockEventInput) => void
  /** The time now, read without a fiber step. */
  readonly nowMs: () => number
  readonly timing: { readonly backoffMs: number; readonly maxAgeMs: number }
  /** What follows a recorded batch (callback faults: CallbackFaults.ts); nothing when absent. */
  readonly afterRecorded?: (batch: ReadonlyArray<AttemptOutcome>) => Effect.Effect<void, SqlError>
}): Effect.Effect<void, SqlError> => {
  const { ended, leases, speeds } = deps
  const record = (endedNow: ReadonlyArray<EndedAttempt>, batch: ReadonlyArray<AttemptOutcome>) =>
    deps.store.recordAttempts(batch).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          ended.remove(endedNow)
          speeds.learn(answeredOf(batch), deps.nowMs())
          for (const outcome of batch) {
            leases.recorded(
              outcome.delivery,
              outcome.next.status === "pending" ? outcome.next.nextAttemptAtMs : undefined
            )
          }
        })
      ),
      Effect.tap(() => {
        for (const outcome of batch) announce(deps.log, deps.publishNow, outcome)
      }),
      Effect.zipRight(deps.afterRecorded === undefined ? Effect.void : deps.afterRecorded(batch))
    )
  return Effect.suspend(() => {
    if (ended.size === 0) return Effect.void
    const endedNow = ended.snapshot()
    return Effect.flatMap(
      Effect.forEach(endedNow, (one) =>
        one.delivered
          ? Effect.succeed(outcomeOf(one, { status: "delivered" }))
          : Effect.map(Random.next, (random) =>
              outcomeOf(one, nextAfterFailure(one.delivery, one.failed, one.endedMs, random, deps.timing))
            )
      ),
      (batch) => record(endedNow, batch)
    )
  })
}
