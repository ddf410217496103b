/**
 * Everything the mock keeps, in SQLite (one process per file) or PostgreSQL (several mock replicas
 * sharing one database), as one service over one module per aggregate: merchants and their key
 * uploads (MerchantStore.ts), orders (OrderStore.ts), callback deliveries and their attempts
 * (DeliveryStore.ts), platform keys (PlatformKeyStore.ts). Every multi-row change is one
 * transaction; uniqueness (one order per appKey + orderId, ordinal key versions, one current
 * platform key) is enforced by the database, so it holds across replicas too. The queries are the
 * same on both dialects except where Dialect.ts says; Database.ts opens each engine.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Environment } from "@pc/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ClockStore, makeClockStore } from "./ClockStore.js"
import { type FaultStore, makeFaultStore } from "./FaultStore.js"
import { isPostgresUrl, openSqlite, postgresDatabase } from "./Database.js"
import { type DeliveryStore, makeDeliveryStore } from "./DeliveryStore.js"
import { type MerchantStore, makeMerchantStore } from "./MerchantStore.js"
import { makeOrderStore, type OrderStore } from "./OrderStore.js"
import { makePlatformKeyStore, type PlatformKeyStore } from "./PlatformKeyStore.js"
import { DatabaseOutage } from "./Outage.js"
import { EnvironmentMismatch } from "./StoreError.js"
import type { DriverName } from "./SqliteDriver.js"

/** What the store offers: each aggregate's operations, and the database's binding to an environment. */
export interface StoreService
  extends MerchantStore,
    OrderStore,
    DeliveryStore,
    PlatformKeyStore,
    ClockStore,
    FaultStore {
  /** Whether other processes share this database (PostgreSQL replicas): then nothing may be cached. */
  readonly shared: boolean

  /**
   * Binds a fresh database to the environment, and refuses one that holds another's data with
   * {@link EnvironmentMismatch}. Replicas starting together on a fresh database all agree.
   */
  readonly claimEnvironment: (
    environment: Environment.Environment
  ) => Effect.Effect<void, SqlError | EnvironmentMismatch>
}

/**
 * The mock's store, on the database `--db` names.
 *
 * @example
 * ```ts
 * const order = yield* Effect.flatMap(Store, (store) => store.getOrder("PC1"))
 * // provided by Store.fromDb(":memory:") or Store.fromDb("postgres://…")
 * ```
 */
export class Store extends Context.Tag("@pc/mock-server/Store")<Store, StoreService>() {
  /**
   * The store on the `SqlClient` in context. `shared`: other processes write the same database,
   * so nothing read from it may be cached in this process.
   */
  static readonly make = (options: {
    readonly shared: boolean
  }): Effect.Effect<StoreService, never, SqlClient.SqlClient> =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return {
        shared: options.shared,
        // Insert-if-absent, then read: replicas starting together on a fresh database all agree.
        claimEnvironment: (environment) =>
          Effect.gen(function* () {
            yield* sql`INSERT INTO meta (key, value) VALUES ('environment', ${environment}) ON CONFLICT DO NOTHING`
            const [row] = yield* sql`SELECT value FROM meta WHERE key = 'environment'`
            if (row?.value !== environment) {
              return yield* new EnvironmentMismatch({ expected: environment, found: String(row?.value) })
            }
          }),
        ...(yield* makeMerchantStore(options)),
        ...(yield* makeOrderStore),
        ...(yield* makeDeliveryStore),
        ...(yield* makePlatformKeyStore),
        ...(yield* makeClockStore),
        ...(yield* makeFaultStore)
      }
    })

  /**
   * The store on SQLite: the file `db` (created 0600 if new, locked for this process) or `:memory:`,
   * through `driver` (by default node:sqlite where Node has it, else better-sqlite3).
   */
  static readonly sqlite = (db: string, driver?: DriverName) =>
    Layer.scoped(
      Store,
      Effect.flatMap(openSqlite(db, driver), (context) => Effect.provide(Store.make({ shared: false }), context))
    )

  /**
   * The store on a shared PostgreSQL database (`postgres://` URL): migrated under a lock, no caches.
   * Its `PgClient` is offered too, for what else the replicas share (their events' LISTEN/NOTIFY),
   * and its {@link DatabaseOutage}, which logs each time the database cannot be reached, once.
   */
  static readonly postgres = (url: string) =>
    Layer.merge(
      Layer.effect(Store, Store.make({ shared: true })),
      Layer.scoped(DatabaseOutage, DatabaseOutage.make)
    ).pipe(Layer.provideMerge(postgresDatabase(url)))

  /** The store `--db` names: PostgreSQL for a `postgres://` URL, else SQLite. */
  static readonly fromDb = (db: string) => (isPostgresUrl(db) ? Store.postgres(db) : Store.sqlite(db))
}
