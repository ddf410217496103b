/**
 * Delivers callbacks (CONTRACT.md "Callbacks"): each attempt gets a fresh timestamp and signature
 * from the current platform key, a per-attempt timeout, and on failure an exponential backoff with
 * jitter, until the merchant answers 2xx or the deliveries' time runs out. The same loop expires
 * orders past their time to live. This module composes the parts: DeliveryLoop (claim, lease,
 * sleep), Attempt and Sender (one attempt), Outcomes (batched recording), ExpirySweep,
 * EndpointSpeeds and PlatformKeys.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { MockConfig } from "../config/Config.js"
import { eventPublisher, eventPublisherNow } from "../events/MockEvents.js"
import { loggerOf } from "../log/RequestLog.js"
import { Faults } from "../domain/Faults.js"
import { Orders } from "../domain/orders/Orders.js"
import type { DeliveryWithAttempts } from "../store/Records.js"
import type { NotFound } from "../store/StoreError.js"
import { Store } from "../store/Store.js"
import { Self } from "../config/UrlRule.js"
import { type AttemptDeps, OnTheWire } from "./Attempt.js"
import { makeDuplicator, makeOutOfOrder } from "./CallbackFaults.js"
import { makeTick } from "./DeliveryLoop.js"
import { fastAnswerMs, makeEndpointSpeeds } from "./EndpointSpeeds.js"
import { ExpirySweep } from "./ExpirySweep.js"
import { Leases, leaseUntil, MAX_FAST_MERCHANTS, MAX_IN_FLIGHT } from "./Leases.js"
import { type EndedAttempt, EndedAttempts, makeOutcomeRecorder, settleEnded } from "./Outcomes.js"
import { PlatformKeys } from "./PlatformKeys.js"
import { makeHttpSender } from "./Sender.js"
import { Wakeup } from "./Wakeup.js"

/** What the rest of the mock asks of the dispatcher: to look for due work now. */
export interface DispatcherService {
  /** Wakes the loop: something may be due now. */
  readonly wake: Effect.Effect<void>
  /**
   * A merchant's notify URL changed: its new endpoint starts at the start limit (it may be slower
   * than the one that was fast), and what waited for a URL is due now (Store.setNotifyUrl).
   */
  readonly notifyUrlChanged: (appKey: string) => Effect.Effect<void>
  /**
   * Queues a delivery again now (the developer menu's resend).
   *
   * Fails with `NotFound` when there is no such delivery.
   */
  readonly resend: (id: string) => Effect.Effect<DeliveryWithAttempts, SqlError | NotFound>
  /**
   * Moves the mock's clock forward by `ms` (store/ClockStore.ts) and looks for what fell due at
   * once: the expiries and retries this loop knew of were read before the move. Answers the offset.
   */
  readonly advanceClock: (ms: number) => Effect.Effect<number, SqlError>
}

/** Makes the dispatcher and starts its loop, which stops with the scope. */
export const make: Effect.Effect<
  DispatcherService,
  never,
  MockConfig | Store | PlatformKeys | Orders | Self | Scope.Scope
> = Effect.gen(function* () {
  const config = yield* MockConfig
  const store = yield* Store
  const orders = yield* Orders
  const clock = yield* Effect.clock
  const nowMs = () => clock.unsafeCurrentTimeMillis()
  const self = yield* Self
  // Made first, so closed last: an attempt still signing when the dispatcher stops finds the wire stopped.
  const fibers = yield* FiberSet.make()
  const sender = yield* makeHttpSender({ timeoutMs: config.callbackTimeoutMs, maxSockets: MAX_IN_FLIGHT, self })
  /** How many attempts each merchant may have in flight, by how fast its endpoint answers. */
  const speeds = makeEndpointSpeeds({ fastMs: fastAnswerMs(config.callbackTimeoutMs), maxFast: MAX_FAST_MERCHANTS })
  const leases = new Leases()
  const wakeup = new Wakeup()
  const ended = new EndedAttempts()
  const wire = new OnTheWire()
  const sweep = new ExpirySweep(store, orders)
  const publish = yield* eventPublisher
  // Callback faults on purpose (CallbackFaults.ts), when the mock was given the service.
  const faults = Option.getOrUndefined(yield* Effect.serviceOption(Faults))
  const recordEnded = makeOutcomeRecorder({
    store,
    speeds,
    leases,
    ended,
    // The loop is forked from this fiber: its log lines go through the same loggers, with the same annotations.
    log: loggerOf(yield* Effect.getFiberRefs),
    publishNow: yield* eventPublisherNow,
    nowMs,
    timing: { backoffMs: config.callbackBackoffMs, maxAgeMs: config.callbackMaxAgeMs },
    ...(faults === undefined
      ? {}
      : {
          afterRecorded: makeDuplicator({
            faults,
            store,
            publish,
            nowMs,
            claimNow: Effect.suspend(() => {
              leases.needClaim()
              return wakeup.wake
            })
          })
        })
  })
  const attempts: AttemptDeps = {
    store,
    keys: yield* PlatformKeys,
    self,
    sender,
    speeds,
    wire,
    nowMs,
    // An attempt ended: it waits for the loop to be recorded, waking it only when it is time.
    settle: (one: EndedAttempt) => settleEnded({ ended, leases, speeds, wakeup }, one, nowMs())
  }
  // Outcomes that ended just before a stop are recorded on the way out; attempts still on the wire
  // are cut off first (their rows stay leased, their attempts show no outcome, as after a crash).
  yield* Effect.addFinalizer(() =>
    Effect.zipRight(
      Effect.sync(() => wire.stop((id) => speeds.dropped(id))),
      Effect.ignore(recordEnded)
    )
  )
  const tick = makeTick({
    timing: config,
    store,
    speeds,
    leases,
    wakeup,
    ended,
    sweep,
    attempts,
    recordEnded,
    fibers,
    ...(faults === undefined ? {} : { outOfOrder: makeOutOfOrder({ faults, publish }) })
  })
  yield* Effect.forkScoped(Effect.forever(tick))
  // A create falls due at its expiry, usually long after the loop's next wake-up: waking the loop
  // (its queries) on every create would make each create pay for them, so only earlier work wakes it.
  // While the loop works any change wakes it again, so that nothing committed after its queries
  // waits for the next poll. Plain, not an Effect: a create calls it without a fiber, and only a
  // wake-up needs one.
  yield* orders.onChange((dueAtMs, changedMs, what) => {
    if (dueAtMs <= changedMs) leases.needClaim()
    // A callback whose first attempt a fault delays (domain/Faults.ts) falls due like a retry.
    else if (what === "delivery") leases.dueAtMs = Math.min(leases.dueAtMs, dueAtMs)
    else sweep.learn(dueAtMs)
    return wakeup.wakesFor(dueAtMs) ? wakeup.wake : undefined
  })
  const claimNow = Effect.suspend(() => {
    leases.needClaim()
    return wakeup.wake
  })
  return {
    wake: claimNow,
    notifyUrlChanged: (appKey) =>
      Effect.zipRight(
        Effect.sync(() => speeds.forget(appKey)),
        claimNow
      ),
    resend: (id) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => store.resend(id, now)).pipe(Effect.tap(() => claimNow)),
    advanceClock: (ms) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        store.advanceClock(ms, leaseUntil(now, config.callbackTimeoutMs))
      ).pipe(
        Effect.tap(() =>
          Effect.suspend(() => {
            sweep.forgetDue()
            leases.forgetDue()
            return wakeup.wake
          })
        )
      )
  }
})

/**
 * The callback dispatcher of a running mock.
 *
 * @example
 * ```ts
 * const dispatcher = yield* Dispatcher
 * yield* dispatcher.notifyUrlChanged(appKey)
 * ```
 */
export class Dispatcher extends Context.Tag("@pc/mock-server/Dispatcher")<Dispatcher, DispatcherService>() {
  /**
   * The service, made from what the caller's context holds (in its scope: what it starts stops with it):
   * Server.ts makes the mock's services one after another in one layer.
   *
   * @example
   * ```ts
   * const dispatcher = yield* Effect.provide(Dispatcher.make, context)
   * ```
   */
  static readonly make = make
  static readonly layer = Layer.scoped(Dispatcher, make)
}
