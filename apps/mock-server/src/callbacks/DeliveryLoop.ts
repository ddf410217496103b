/**
 * The delivery loop: each turn records what ended, expires what is due, claims (leases) due rows
 * for the free slots and starts their attempts, then sleeps until the next thing falls due or new
 * work wakes it. Deliveries are rows written with the order's move, so the loop only reads what is
 * due; after a restart it simply finds the pending rows again.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import type { ClaimedDelivery } from "../store/DeliveryStore.js"
import { DatabaseOutage, isUnreachable } from "../store/Outage.js"
import type { StoreService } from "../store/Store.js"
import { type AttemptDeps, attemptAll } from "./Attempt.js"
import { type EndpointSpeeds, START_IN_FLIGHT_PER_MERCHANT } from "./EndpointSpeeds.js"
import type { ExpirySweep } from "./ExpirySweep.js"
import { leaseUntil, type Leases } from "./Leases.js"
import { type EndedAttempts, RECORD_WAIT_MS, recordNow } from "./Outcomes.js"
import type { Wakeup } from "./Wakeup.js"
import type { OutOfOrder } from "./CallbackFaults.js"

/**
 * A failed turn: the database away (a PostgreSQL restart) is the outage's, logged once for the
 * whole outage by {@link DatabaseOutage} rather than once per turn; anything else is logged as an
 * error. Either way the next turn claims again.
 */
const tickFailed = (cause: Cause.Cause<unknown>): Effect.Effect<void> => {
  const squashed = Cause.squash(cause)
  if (!Cause.isInterruptedOnly(cause) && isUnreachable(squashed)) {
    return Effect.serviceOption(DatabaseOutage).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.logError("dispatcher tick failed", cause),
          onSome: (outage) => outage.noteUnreachable(squashed)
        })
      )
    )
  }
  return Effect.logError("dispatcher tick failed", cause)
}

/** What the loop works with: each idea's state, and the effects that act on it. */
export interface LoopDeps {
  readonly timing: { readonly callbackPollMs: number; readonly callbackTimeoutMs: number }
  readonly store: StoreService
  readonly speeds: EndpointSpeeds
  readonly leases: Leases
  readonly wakeup: Wakeup
  readonly ended: EndedAttempts
  readonly sweep: ExpirySweep
  readonly attempts: AttemptDeps
  /** Records the ended attempts' outcomes (Outcomes.makeOutcomeRecorder). */
  readonly recordEnded: Effect.Effect<void, SqlError>
  /** Where attempts run: they end with the dispatcher's scope. */
  readonly fibers: FiberSet.FiberSet
  /** The callback fault `outOfOrder` (CallbackFaults.ts); claims go out as claimed when absent. */
  readonly outOfOrder?: OutOfOrder | undefined
}

/** Claims due rows for the free slots, each merchant's less those it has in flight. */
const claim = (deps: LoopDeps, nowMs: number, leasedUntilMs: number, room: number) =>
  Effect.gen(function* () {
    const { leases, speeds } = deps
    const claimed = yield* deps.store.claimDue(
      nowMs,
      leasedUntilMs,
      // Limits read now, not at the tick's start: an attempt's time on the wire counts to this moment.
      leases.claimOptions(
        room,
        deps.outOfOrder?.perMerchant() ?? START_IN_FLIGHT_PER_MERCHANT,
        speeds.limits(deps.attempts.nowMs())
      )
    )
    leases.claimedFrom(claimed, room, (appKey) => speeds.limitOf(appKey, nowMs))
    return claimed
  })

/**
 * Starts the attempts of a claim in the dispatcher's fibers. An attempt that was never sent and
 * settled no outcome (it crashed) frees its slot when its fiber ends; its row stays leased and is
 * due again when the lease ends.
 */
const start = (deps: LoopDeps, claimed: ReadonlyArray<ClaimedDelivery>, leasedUntilMs: number) =>
  FiberSet.run(
    deps.fibers,
    attemptAll(deps.attempts, claimed, leasedUntilMs).pipe(
      Effect.catchAllCause((cause) => Effect.logError("callback attempt crashed", cause)),
      Effect.ensuring(
        Effect.suspend(() => {
          const settled = deps.ended.deliveryIds()
          const lost = claimed.filter(
            (delivery) =>
              deps.leases.inFlight.has(delivery.id) && !settled.has(delivery.id) && !deps.attempts.wire.has(delivery.id)
          )
          if (lost.length === 0) return Effect.void
          deps.leases.lost(lost)
          return deps.wakeup.wake
        })
      )
    )
  )

/**
 * One turn of the loop. What only the database knows (another replica's moves and retries) is
 * read afresh at least every callbackPollMs; in between the loop keeps what it read and what it
 * did itself. A failed turn (the database gone for a moment) is tried again after a pause, not in
 * a hot loop.
 *
 * @example
 * ```ts
 * yield* Effect.forkScoped(Effect.forever(makeTick(deps)))
 * ```
 */
export const makeTick = (deps: LoopDeps): Effect.Effect<void> => {
  const { leases, sweep, timing, wakeup } = deps
  /** When the loop last read what falls due from the database. */
  let readAtMs = Number.NEGATIVE_INFINITY
  return Effect.gen(function* () {
    const nowMs = yield* Clock.currentTimeMillis
    if (recordNow(deps.ended, leases, deps.speeds, nowMs)) yield* deps.recordEnded
    if (nowMs - readAtMs >= timing.callbackPollMs) {
      leases.forgetDue()
      sweep.forgetDue()
      readAtMs = nowMs
    }
    if (sweep.isDue(nowMs)) yield* sweep.run(nowMs)
    // Only the lease that took a row attempts it; the lease value also tells the attempt's record
    // whether a resend came in meanwhile.
    const leasedUntilMs = leaseUntil(nowMs, timing.callbackTimeoutMs)
    const room = leases.room
    // A retry or a lease that fell due since the last claim is claimable now.
    if (nowMs >= leases.dueAtMs) leases.needClaim()
    const claimed = room > 0 && leases.claimNeeded ? yield* claim(deps, nowMs, leasedUntilMs, room) : []
    if (claimed.length > 0) {
      leases.take(claimed, leasedUntilMs)
      yield* start(deps, deps.outOfOrder === undefined ? claimed : yield* deps.outOfOrder.order(claimed), leasedUntilMs)
    }
    // What is due now but was not started waits for slots to free up (the ends that make a batch
    // to record wake the loop, Dispatcher.ts; the others have it up within RECORD_WAIT_MS),
    // and new work from this process wakes it too (a move, a resend, a notify URL): the timer is
    // only for what falls due later (a retry's backoff, an order's expiry, a lease running out),
    // and at most callbackPollMs for what only the database knows (another replica's moves).
    if (nowMs >= leases.dueAtMs) {
      // Kept if learned while the query runs (a callback delayed by a fault, Dispatcher.ts): that
      // row may have been committed after the query read.
      leases.dueAtMs = Number.POSITIVE_INFINITY
      const next = yield* deps.store.nextDeliveryAt(nowMs).pipe(
        // Not read: read again on the next turn.
        Effect.onError(() => Effect.sync(() => leases.forgetDue()))
      )
      leases.dueAtMs = Math.min(leases.dueAtMs, next ?? Number.POSITIVE_INFINITY)
    }
    const before = yield* Clock.currentTimeMillis
    const soonest = Math.min(
      readAtMs + timing.callbackPollMs,
      leases.dueAtMs,
      sweep.dueAtMs,
      deps.ended.sinceMs + RECORD_WAIT_MS
    )
    const waitMs = Math.max(0, soonest - before)
    wakeup.sleepingUntil = before + waitMs
    yield* wakeup.sleep(waitMs)
    wakeup.sleepingUntil = Number.NEGATIVE_INFINITY
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.zipRight(
        tickFailed(cause).pipe(Effect.tap(() => leases.needClaim())),
        Effect.sleep(Duration.millis(timing.callbackPollMs))
      )
    )
  )
}
