/**
 * The mock's clock (CONTRACT.md "Faults and time"): how far a test has moved it forward, kept in
 * the database so that replicas on PostgreSQL share it. Moving the clock forward by `ms` adds to
 * the stored offset and, in the same transaction, brings every open deadline `ms` closer: an open
 * order's expiry and a pending delivery's next attempt. The expiry sweep and the delivery loop keep
 * judging deadlines against the real time, so an order past its time to live on the moved clock is
 * due at once, and a retry whose backoff has passed on the moved clock goes out at once; signatures
 * and request timestamps never see the offset (the merchant's clock is real).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"

/** The `meta` row that holds the clock's offset, in milliseconds. */
const OFFSET_KEY = "clock_offset_ms"

/** What the store keeps of the clock. */
export interface ClockStore {
  /** How far the clock has been moved forward, in milliseconds (0 when never). */
  readonly clockOffset: Effect.Effect<number, SqlError>
  /**
   * Moves the clock forward by `ms` and answers the new offset. Deadlines before `leasedUntilMs`
   * stay: a pending delivery whose next attempt is that close may be leased for an attempt in flight
   * (its next attempt is the lease's end), and it falls due by itself within a lease anyway.
   */
  readonly advanceClock: (ms: number, leasedUntilMs: number) => Effect.Effect<number, SqlError>
}

/**
 * The clock's queries on the `SqlClient` in context.
 *
 * @example
 * ```ts
 * const clock = yield* makeClockStore
 * const offsetMs = yield* clock.advanceClock(31 * 60_000, Date.now() + 11_000)
 * ```
 */
export const makeClockStore: Effect.Effect<ClockStore, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const readOffset = Effect.map(
    sql<{ readonly value: string }>`SELECT value FROM meta WHERE key = ${OFFSET_KEY}`,
    (rows) => (rows[0] === undefined ? 0 : Number(rows[0].value))
  )
  return {
    clockOffset: readOffset,
    advanceClock: (ms, leasedUntilMs) =>
      sql.withTransaction(
        Effect.gen(function* () {
          // One statement adds to the offset, so two replicas advancing at once both count.
          yield* sql`INSERT INTO meta (key, value) VALUES (${OFFSET_KEY}, ${String(ms)})
            ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(meta.value AS BIGINT) + ${ms} AS TEXT)`
          yield* sql`UPDATE orders SET expires_at_ms = expires_at_ms - ${ms} WHERE status = 'CREATED'`
          yield* sql`UPDATE deliveries SET next_attempt_at_ms = next_attempt_at_ms - ${ms}
            WHERE status = 'pending' AND next_attempt_at_ms > ${leasedUntilMs}`
          return yield* readOffset
        })
      )
  }
})
