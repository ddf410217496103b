/**
 * Callback faults on purpose (CONTRACT.md "Faults and time"): `duplicateRate` delivers an
 * acknowledged callback again, queued as the developer menu's resend is, so that it is signed afresh
 * with a new `X-R-Ts` and carries the same `eventId`. A delivery is duplicated at most once.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type { FaultsService } from "../domain/Faults.js"
import type { MockEventInput } from "../events/MockEvents.js"
import type { AttemptOutcome } from "../store/DeliveryStore.js"
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
