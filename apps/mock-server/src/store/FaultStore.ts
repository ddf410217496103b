/**
 * The fault setting in the database (CONTRACT.md "Faults and time"), in the `meta` table as the
 * clock's offset is (ClockStore.ts), so that replicas on PostgreSQL share one setting. Each setting
 * stored carries a revision of its own: a replica takes a setting in (and starts its PRNGs again)
 * when the revision changes, even when the setting is the same as before.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { FaultSetting } from "../config/Faults.js"

/** The `meta` row that holds the fault setting, as JSON. */
const SETTING_KEY = "fault_setting"

/** A stored fault setting and its revision. */
export const StoredFaults = Schema.Struct({ revision: Schema.String, setting: FaultSetting })

/** A stored fault setting and its revision. */
export type StoredFaults = typeof StoredFaults.Type

const decodeStored = Schema.decodeUnknownOption(Schema.parseJson(StoredFaults))
const encodeStored = Schema.encodeSync(Schema.parseJson(StoredFaults))

/** What the store keeps of the fault setting. */
export interface FaultStore {
  /** The stored setting; none when never stored (or, from an older mock, unreadable: then none is in force). */
  readonly faultSetting: Effect.Effect<Option.Option<StoredFaults>, SqlError>
  /** Stores the whole setting, replacing the one there was. */
  readonly putFaultSetting: (stored: StoredFaults) => Effect.Effect<void, SqlError>
}

/**
 * The fault setting's queries on the `SqlClient` in context.
 *
 * @example
 * ```ts
 * const faults = yield* makeFaultStore
 * yield* faults.putFaultSetting({ revision: randomUUID(), setting: { seed: 7 } })
 * ```
 */
export const makeFaultStore: Effect.Effect<FaultStore, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    faultSetting: Effect.map(
      sql<{ readonly value: string }>`SELECT value FROM meta WHERE key = ${SETTING_KEY}`,
      (rows) => (rows[0] === undefined ? Option.none() : decodeStored(rows[0].value))
    ),
    putFaultSetting: (stored) => {
      const value = encodeStored(stored)
      return sql`INSERT INTO meta (key, value) VALUES (${SETTING_KEY}, ${value})
        ON CONFLICT (key) DO UPDATE SET value = ${value}`.pipe(Effect.asVoid)
    }
  }
})
