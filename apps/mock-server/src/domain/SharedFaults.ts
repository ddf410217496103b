/**
 * The fault setting shared through the database (store/FaultStore.ts): `PUT /dev/faults` on one
 * replica is stored, and every replica on the same PostgreSQL database takes it in, at once when it
 * answers `GET /dev/faults` and within a poll (`callbackPollMs`) otherwise. The PRNGs stay each
 * process's own (domain/Faults.ts): a replica starts its own from the seed when it takes a setting
 * in, so the same seed gives the same faults per replica for the same requests to that replica.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { MockConfig } from "../config/Config.js"
import type { FaultSetting } from "../config/Faults.js"
import { Store, type StoreService } from "../store/Store.js"
import { Faults, type FaultsService } from "./Faults.js"

/**
 * Takes in the stored setting when it is another than the one in force here; answers the setting
 * in force.
 *
 * @example
 * ```ts
 * const setting = yield* adoptStored(store, faults)
 * ```
 */
export const adoptStored = (store: StoreService, faults: FaultsService): Effect.Effect<FaultSetting, SqlError> =>
  Effect.map(store.faultSetting, (stored) => {
    if (Option.isSome(stored) && stored.value.revision !== faults.revision()) {
      faults.set(stored.value.setting, stored.value.revision)
    }
    return faults.setting()
  })

/**
 * Stores `setting` as a new revision and puts it in force here; answers it.
 *
 * @example
 * ```ts
 * yield* putShared(store, faults, { seed: 7, callbacks: { outOfOrder: true } })
 * ```
 */
export const putShared = (
  store: StoreService,
  faults: FaultsService,
  setting: FaultSetting
): Effect.Effect<FaultSetting, SqlError> => {
  const revision = randomUUID()
  return Effect.as(
    Effect.tap(store.putFaultSetting({ revision, setting }), () => faults.set(setting, revision)),
    setting
  )
}

/**
 * At start: the setting given (`--faults`, `startMock({ faults })`) is stored; without one, a
 * replica on PostgreSQL takes in the setting the others share, and a SQLite file (one process's)
 * starts without faults, not with a previous run's. On PostgreSQL a poll then takes in what other
 * replicas store, until the scope ends.
 *
 * @example
 * ```ts
 * yield* Effect.provide(shareFaults, context)
 * ```
 */
export const shareFaults: Effect.Effect<void, SqlError, MockConfig | Store | Faults | Scope.Scope> = Effect.gen(
  function* () {
    const config = yield* MockConfig
    const store = yield* Store
    const faults = yield* Faults
    if (config.faults !== undefined || !store.shared) yield* putShared(store, faults, config.faults ?? {})
    else yield* adoptStored(store, faults)
    if (!store.shared) return
    yield* adoptStored(store, faults).pipe(
      // The database gone for a moment: the setting in force stays until the next poll reads it.
      Effect.catchAll((error) => Effect.logDebug("fault setting not read", error)),
      Effect.repeat(Schedule.spaced(Duration.millis(config.callbackPollMs))),
      Effect.forkScoped
    )
  }
)
