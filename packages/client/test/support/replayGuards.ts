// Opens a shared replay guard by kind on a real store, the same way in the test process and in the
// worker processes that race it (replayGuardWorker.ts).
// Each kind imports only its own driver, so that a worker starts as fast as a receiver would.
import type { SqlClient } from "@effect/sql/SqlClient"
import type { Layer } from "effect"
import type * as ReplayGuard from "../../src/ReplayGuard.js"
import type * as ReplaySql from "../../src/ReplaySql.js"

export type SharedGuardKind = "sqlite" | "postgres" | "mysql" | "ioredis" | "node-redis"

export interface OpenGuard {
  readonly guard: ReplayGuard.ReplayGuard
  readonly close: () => Promise<void>
}

const onSql = async (layer: Layer.Layer<SqlClient, unknown>, options: ReplaySql.Options): Promise<OpenGuard> => {
  const [{ ManagedRuntime }, ReplaySqlModule] = await Promise.all([import("effect"), import("../../src/ReplaySql.js")])
  const runtime = ManagedRuntime.make(layer)
  const guard = await runtime.runPromise(ReplaySqlModule.make(options))
  return { guard, close: () => runtime.dispose() }
}

/** `target`: the SQLite file, the PostgreSQL or MySQL/MariaDB URL, or the Redis URL. */
export const openGuard = async (
  kind: SharedGuardKind,
  target: string,
  options: { readonly ttlMs?: number } = {}
): Promise<OpenGuard> => {
  switch (kind) {
    case "sqlite": {
      const { SqliteClient } = await import("@effect/sql-sqlite-node")
      return onSql(SqliteClient.layer({ filename: target }), options)
    }
    case "postgres": {
      const [{ PgClient }, { Redacted }] = await Promise.all([import("@effect/sql-pg"), import("effect")])
      return onSql(PgClient.layer({ url: Redacted.make(target), maxConnections: 8 }), options)
    }
    case "mysql": {
      const [{ MysqlClient }, { Redacted }] = await Promise.all([import("@effect/sql-mysql2"), import("effect")])
      return onSql(MysqlClient.layer({ url: Redacted.make(target), maxConnections: 8 }), options)
    }
    case "ioredis": {
      const [{ Redis }, ReplayRedis] = await Promise.all([import("ioredis"), import("../../src/ReplayRedis.js")])
      const redis = new Redis(target, { maxRetriesPerRequest: 1, lazyConnect: true })
      await redis.connect()
      return { guard: ReplayRedis.make(redis, options), close: async () => void (await redis.quit()) }
    }
    case "node-redis": {
      const [{ createClient }, ReplayRedis] = await Promise.all([import("redis"), import("../../src/ReplayRedis.js")])
      const redis = createClient({ url: target })
      // node-redis reports a dropped connection as an "error" event, which must have a listener;
      // the guard's own commands still reject.
      redis.on("error", () => {})
      await redis.connect()
      return { guard: ReplayRedis.make(redis, options), close: () => redis.close() }
    }
  }
}

/** Asks a guard of any shape (boolean, Promise or Effect answer), as the verifier does. */
export const ask = async (guard: ReplayGuard.ReplayGuard, entry: ReplayGuard.ReplayEntry): Promise<boolean> => {
  const answer = guard.seenBefore(entry)
  if (typeof answer === "boolean" || "then" in answer) return answer
  const { Effect } = await import("effect")
  return Effect.runPromise(answer)
}

export const WINDOW_MS = 5 * 60 * 1000

/** A verified delivery as the verifier hands it to the guard. */
export const entryOf = (key: string, receivedAt: number, timestamp = receivedAt): ReplayGuard.ReplayEntry => ({
  key,
  appKey: "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4",
  environment: "production",
  keyVersion: 1,
  timestamp,
  eventId: "evt_01",
  receivedAt,
  expiresAt: timestamp + WINDOW_MS
})
