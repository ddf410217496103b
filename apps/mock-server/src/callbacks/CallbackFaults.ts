/**
 * Callback faults on purpose (CONTRACT.md "Faults and time"): `duplicateRate` delivers an
 * acknowledged callback again, queued as the developer menu's resend is, so that it is signed afresh
 * with a new `X-R-Ts` and carries the same `eventId`. A delivery is duplicated at most once.
 * `outOfOrder` sends each claimed batch in a seeded shuffled order (domain/Faults.ts), and lets a
 * merchant's batch hold all the room a fast merchant has, so that callbacks due together are
 * shuffled together. (`delayMs` is drawn where the callback is queued: domain/orders/Orders.ts.)
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type { FaultsService } from "../domain/Faults.js"
import type { MockEventInput } from "../events/MockEvents.js"
import type { AttemptOutcome, ClaimedDelivery } from "../store/DeliveryStore.js"
import { MAX_IN_FLIGHT_PER_MERCHANT } from "./EndpointSpeeds.js"
import type { StoreService } from "../store/Store.js"

/** How many duplicated deliveries are remembered (so as not to duplicate a duplicate). */
const REMEMBERED = 10_000

/**
 * What follows each recorded batch of attempts: the duplicates the setting asks for.
 *
 * @example
 * ```ts
 * const afterRecorded = makeDuplicator({ faults, store, publish, nowMs, claimNow })
 * ```
 */
export const makeDuplicator = (deps: {
  readonly faults: FaultsService
  readonly store: StoreService
  readonly publish: (event: MockEventInput) => Effect.Effect<void>
  readonly nowMs: () => number
  /** Wakes the delivery loop to claim what is due now. */
  readonly claimNow: Effect.Effect<void>
}) => {
  const duplicated = new Set<string>()
  return (batch: ReadonlyArray<AttemptOutcome>): Effect.Effect<void, SqlError> =>
    Effect.suspend(() => {
      const again = batch.filter(
        (outcome) =>
          outcome.next.status === "delivered" && !duplicated.has(outcome.delivery.id) && deps.faults.duplicateCallback()
      )
      if (again.length === 0) return Effect.void
      for (const outcome of again) {
        duplicated.add(outcome.delivery.id)
        if (duplicated.size > REMEMBERED) duplicated.delete(duplicated.values().next().value!)
      }
      return Effect.forEach(
        again,
        (outcome) =>
          deps.store.resend(outcome.delivery.id, deps.nowMs()).pipe(
            // A delivery gone meanwhile has nothing to duplicate.
            Effect.catchTag("NotFound", () => Effect.void),
            Effect.zipRight(
              deps.publish({
                type: "fault",
                name: "duplicate",
                route: "callback",
                orderId: null,
                requestId: null,
                delayMs: 0
              })
            )
          ),
        { discard: true }
      ).pipe(Effect.zipRight(deps.claimNow))
    })
}

/** The `outOfOrder` fault, as the delivery loop applies it to each claim (DeliveryLoop.ts). */
export interface OutOfOrder {
  /**
   * How many due rows a merchant's claim may take, counting those in flight: with the fault on,
   * a fast merchant's limit for every merchant (a batch of one has no order to shuffle);
   * `undefined` leaves the loop's own.
   */
  readonly perMerchant: () => number | undefined
  /** A claimed batch in the order its attempts go out, with a `fault` event when it was shuffled. */
  readonly order: (claimed: ReadonlyArray<ClaimedDelivery>) => Effect.Effect<ReadonlyArray<ClaimedDelivery>>
}

/**
 * The `outOfOrder` fault of a running mock, reading the setting in force on each claim.
 *
 * @example
 * ```ts
 * const outOfOrder = makeOutOfOrder({ faults, publish })
 * const ordered = yield* outOfOrder.order(claimed)
 * ```
 */
export const makeOutOfOrder = (deps: {
  readonly faults: FaultsService
  readonly publish: (event: MockEventInput) => Effect.Effect<void>
}): OutOfOrder => ({
  perMerchant: () => (deps.faults.setting().callbacks?.outOfOrder === true ? MAX_IN_FLIGHT_PER_MERCHANT : undefined),
  order: (claimed) =>
    Effect.suspend(() => {
      const ordered = deps.faults.shuffle(claimed)
      if (ordered.every((delivery, i) => delivery === claimed[i])) return Effect.succeed(ordered)
      return Effect.as(
        deps.publish({
          type: "fault",
          name: "outOfOrder",
          route: "callback",
          orderId: null,
          requestId: null,
          delayMs: 0
        }),
        ordered
      )
    })
})
