// Merchants and their key uploads (tables `merchants` and `merchant_keys`): registration, the n-th
// upload as key version n, disabling a version, the notify URL, and the key lookup authentication
// makes on every request.
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { isoTime } from "./IsoTime.js"
import { makeDueNow } from "./DeliveryStore.js"
import { wholeNumber } from "./Dialect.js"
import { rowDecoderSync } from "./RowDecoder.js"
import { fromStorePromise, NotFound } from "./StoreError.js"
import { perTurn } from "./TurnBatch.js"
import { badRowIsDefect, column, type Merchant, MerchantKey } from "./Records.js"

const MerchantRow = Schema.Struct({ notifyUrl: column("notify_url", Schema.NullOr(Schema.String)) })

/** What authentication needs of one key version. */
const AuthKeyRow = Schema.Struct({
  version: Schema.Number,
  publicKeyPem: column("public_key_pem", Schema.String),
  status: MerchantKey.fields.status
})
type AuthKey = Omit<typeof AuthKeyRow.Type, "version">
/** What authentication needs of a merchant: its key versions with their PEM and status. */
export type AuthKeys = ReadonlyMap<number, AuthKey>

const NextVersion = Schema.Struct({ next: Schema.Number })

const ListedMerchant = Schema.Struct({ appKey: column("app_key", Schema.String), ...MerchantRow.fields })
const ListedKey = Schema.Struct({ appKey: column("app_key", Schema.String), ...MerchantKey.fields })

/** Merchants and their keys, as the store offers them. */
export interface MerchantStore {
  /**
   * Creates a merchant with its first key (version 1). Fails with `SqlError` when the appKey
   * exists (a UNIQUE violation).
   */
  readonly createMerchant: (input: {
    readonly appKey: string
    readonly publicKeyPem: string
    readonly notifyUrl: string | null
    readonly nowMs: number
  }) => Effect.Effect<number, SqlError>

  /**
   * Makes sure a fixed merchant (the test merchant) exists with this key as version 1; does nothing
   * when it exists. Replicas starting together agree: one inserts, the others find its row.
   */
  readonly ensureMerchant: (input: {
    readonly appKey: string
    readonly publicKeyPem: string
    readonly nowMs: number
  }) => Effect.Effect<void, SqlError>

  /** The merchant with its key uploads, if it exists. */
  readonly getMerchant: (appKey: string) => Effect.Effect<Option.Option<Merchant>, SqlError>

  /**
   * The newest `limit` merchants, newest first, with their key versions (the developer dashboard's
   * list); two queries whatever `limit`.
   */
  readonly recentMerchants: (limit: number) => Effect.Effect<ReadonlyArray<Merchant>, SqlError>

  /** Adds a key upload; resolves its version (the ordinal of the upload). Fails with {@link NotFound}. */
  readonly addMerchantKey: (
    appKey: string,
    publicKeyPem: string,
    nowMs: number
  ) => Effect.Effect<number, SqlError | NotFound>

  /** Disables one key version of a merchant. Fails with {@link NotFound} when there is no such version. */
  readonly disableMerchantKey: (appKey: string, version: number) => Effect.Effect<void, SqlError | NotFound>

  /** Enables a disabled key version again (its way back). Fails with {@link NotFound} when there is no such version. */
  readonly enableMerchantKey: (appKey: string, version: number) => Effect.Effect<void, SqlError | NotFound>

  /**
   * Every key version of a merchant (PEM and status), `null` when there is no such merchant: what
   * authentication reads on every request, cached in this process unless the database is shared
   * (see `make`).
   */
  readonly authKeys: (appKey: string) => Effect.Effect<AuthKeys | null, SqlError>

  /**
   * {@link MerchantStore.authKeys} without a fiber step: the keys this process has cached, or, on a
   * shared database (where nothing is cached), a Promise of the read that the requests arriving
   * together share, rejected with a SqlError when it fails (with anything else, a defect);
   * `undefined` when they must be read through `authKeys`.
   */
  readonly authKeysNow: (appKey: string) => AuthKeys | Promise<AuthKeys | null> | undefined

  /**
   * Sets the notify URL and makes the merchant's waiting deliveries due now, in one transaction.
   * Fails with {@link NotFound}.
   */
  readonly setNotifyUrl: (appKey: string, notifyUrl: string, nowMs: number) => Effect.Effect<void, SqlError | NotFound>

  /** The merchant's notify URL; `null` when it has none or does not exist. */
  readonly notifyUrlOf: (appKey: string) => Effect.Effect<string | null, SqlError>
}

/**
 * The merchant store on the `SqlClient` in context. `shared`: other processes write the same
 * database (PostgreSQL replicas), so nothing read from it may be cached in this process.
 *
 * @example
 * ```ts
 * const merchants = yield* makeMerchantStore({ shared: false })
 * const keys = yield* merchants.authKeys(appKey)
 * ```
 */
export const makeMerchantStore = (options: { readonly shared: boolean }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const keysOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: MerchantKey,
      execute: (appKey) =>
        sql`SELECT version, status, uploaded_at FROM merchant_keys WHERE app_key = ${appKey} ORDER BY version`
    })
    const findMerchant = SqlSchema.findOne({
      Request: Schema.String,
      Result: MerchantRow,
      execute: (appKey) => sql`SELECT notify_url FROM merchants WHERE app_key = ${appKey}`
    })
    const authKeysOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: AuthKeyRow,
      execute: (appKey) => sql`SELECT version, public_key_pem, status FROM merchant_keys WHERE app_key = ${appKey}`
    })
    const nextVersion = SqlSchema.single({
      Request: Schema.String,
      Result: NextVersion,
      execute: (appKey) =>
        sql`SELECT COALESCE(MAX(version), 0) + 1 AS next FROM merchant_keys WHERE app_key = ${appKey}`
    })
    const newest = SqlSchema.findAll({
      Request: Schema.Number,
      Result: ListedMerchant,
      execute: (limit) =>
        sql`SELECT app_key, notify_url FROM merchants ORDER BY created_at DESC, app_key DESC LIMIT ${wholeNumber(sql, limit)}`
    })
    const keysOfMany = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: ListedKey,
      execute: (appKeys) => sql`SELECT app_key, version, status, uploaded_at FROM merchant_keys
        WHERE app_key IN ${sql.in(appKeys)} ORDER BY app_key, version`
    })
    const exists = (appKey: string) =>
      Effect.map(sql`SELECT 1 FROM merchants WHERE app_key = ${appKey}`, (rows) => rows.length > 0)

    const getMerchant = (appKey: string): Effect.Effect<Option.Option<Merchant>, SqlError> =>
      Effect.gen(function* () {
        const merchant = yield* findMerchant(appKey)
        if (Option.isNone(merchant)) return Option.none()
        const keys = yield* keysOf(appKey)
        return Option.some({ appKey, notifyUrl: merchant.value.notifyUrl, keys })
      }).pipe(badRowIsDefect)

    const insertKey = (appKey: string, publicKeyPem: string, nowMs: number) =>
      Effect.gen(function* () {
        // The n-th upload is version n (spec 5.2): the next ordinal, inside the same transaction.
        const { next: version } = yield* nextVersion(appKey).pipe(badRowIsDefect)
        yield* sql`INSERT INTO merchant_keys (app_key, version, public_key_pem, status, uploaded_at)
        VALUES (${appKey}, ${version}, ${publicKeyPem}, 'active', ${isoTime(nowMs)})`
        return version
      })

    // On a shared database, where nothing is cached, every request reads its merchant's keys: the
    // reads that arrive together are one statement (TurnBatch.ts), a round trip for the group
    // instead of one per request. Each still reads after its request arrived.
    const decodeAuthRow = rowDecoderSync(AuthKeyRow)
    const authRowsOfMany = (appKeys: ReadonlyArray<string>) =>
      Effect.map(
        sql.unsafe<{ readonly app_key: string }>(
          "SELECT app_key, version, public_key_pem, status FROM merchant_keys WHERE app_key = ANY($1::text[])",
          [[...new Set(appKeys)]]
        ),
        (rows) => {
          const byAppKey = new Map<string, Array<unknown>>()
          for (const row of rows) {
            const keys = byAppKey.get(row.app_key)
            if (keys === undefined) byAppKey.set(row.app_key, [row])
            else keys.push(row)
          }
          return appKeys.map((appKey) => byAppKey.get(appKey) ?? [])
        }
      )
    const sharedAuthRows = options.shared ? perTurn(yield* Effect.runtime<never>(), authRowsOfMany) : undefined
    const keysFrom = (rows: ReadonlyArray<typeof AuthKeyRow.Type>): AuthKeys | null =>
      rows.length === 0 ? null : new Map(rows.map(({ version, ...key }) => [version, key] as const))
    /** The keys on a shared database, without a fiber: only the batch's statement takes one. */
    const sharedAuthKeys = (shared: NonNullable<typeof sharedAuthRows>, appKey: string) =>
      shared(appKey).then((rows) => keysFrom(rows.map(decodeAuthRow)))

    // What authentication reads on every request (does the merchant exist, which key versions, which
    // are disabled), cached per appKey. On SQLite this store is the only writer, and every write
    // below that touches a merchant forgets its entry, so the cache is never stale. On a shared
    // database another replica may disable a key at any time: there nothing is cached.
    const authCache = new Map<string, AuthKeys>()
    let writes = 0

    const authOf = (appKey: string): Effect.Effect<AuthKeys | null, SqlError> => {
      if (sharedAuthRows !== undefined) {
        return fromStorePromise(() => sharedAuthKeys(sharedAuthRows, appKey))
      }
      const cached = authCache.get(appKey)
      if (cached !== undefined) return Effect.succeed(cached)
      return Effect.gen(function* () {
        // A write that lands while this load runs bumps the generation: then the load is not cached.
        const generation = writes
        // One query: every merchant has at least one key row (it is created with version 1, and
        // keys are disabled, never deleted), so no key rows means no merchant.
        const keys = keysFrom(yield* authKeysOf(appKey))
        // Only merchants are cached: a miss costs one query, and caching misses would let requests
        // with made-up appKeys grow this map without bound.
        if (keys !== null && generation === writes) authCache.set(appKey, keys)
        return keys
      }).pipe(badRowIsDefect)
    }
    const forget = (appKey: string) =>
      Effect.ensuring(
        Effect.sync(() => {
          writes++
          authCache.delete(appKey)
        })
      )

    const merchants: MerchantStore = {
      createMerchant: (input) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO merchants (app_key, notify_url, created_at)
            VALUES (${input.appKey}, ${input.notifyUrl}, ${isoTime(input.nowMs)})`
              return yield* insertKey(input.appKey, input.publicKeyPem, input.nowMs)
            })
          )
          .pipe(forget(input.appKey)),

      ensureMerchant: (input) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              // Insert-if-absent: of replicas starting together, one inserts and the others (waiting
              // on its row until it commits) do nothing.
              const inserted = yield* sql`INSERT INTO merchants (app_key, notify_url, created_at)
              VALUES (${input.appKey}, NULL, ${isoTime(input.nowMs)}) ON CONFLICT DO NOTHING RETURNING app_key`
              if (inserted.length === 0) return
              yield* insertKey(input.appKey, input.publicKeyPem, input.nowMs)
            })
          )
          .pipe(forget(input.appKey)),

      getMerchant,

      recentMerchants: (limit) =>
        Effect.gen(function* () {
          const rows = yield* newest(limit)
          if (rows.length === 0) return []
          const keys = new Map<string, Array<MerchantKey>>()
          for (const { appKey, ...key } of yield* keysOfMany(rows.map((row) => row.appKey))) {
            const list = keys.get(appKey) ?? []
            list.push(key)
            keys.set(appKey, list)
          }
          return rows.map((row) => ({ appKey: row.appKey, notifyUrl: row.notifyUrl, keys: keys.get(row.appKey) ?? [] }))
        }).pipe(badRowIsDefect),

      addMerchantKey: (appKey, publicKeyPem, nowMs) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              if (!(yield* exists(appKey))) return yield* new NotFound({ what: `merchant ${appKey}` })
              return yield* insertKey(appKey, publicKeyPem, nowMs)
            })
          )
          .pipe(forget(appKey)),

      disableMerchantKey: (appKey, version) =>
        Effect.gen(function* () {
          const rows = yield* sql`UPDATE merchant_keys SET status = 'disabled'
          WHERE app_key = ${appKey} AND version = ${version} RETURNING version`
          if (rows.length === 0) return yield* new NotFound({ what: `key version ${version} of merchant ${appKey}` })
        }).pipe(forget(appKey)),

      enableMerchantKey: (appKey, version) =>
        Effect.gen(function* () {
          const rows = yield* sql`UPDATE merchant_keys SET status = 'active'
          WHERE app_key = ${appKey} AND version = ${version} RETURNING version`
          if (rows.length === 0) return yield* new NotFound({ what: `key version ${version} of merchant ${appKey}` })
        }).pipe(forget(appKey)),

      authKeys: authOf,

      authKeysNow: (appKey) =>
        sharedAuthRows === undefined ? authCache.get(appKey) : sharedAuthKeys(sharedAuthRows, appKey),

      setNotifyUrl: (appKey, notifyUrl, nowMs) =>
        sql.withTransaction(
          Effect.gen(function* () {
            const rows =
              yield* sql`UPDATE merchants SET notify_url = ${notifyUrl} WHERE app_key = ${appKey} RETURNING app_key`
            if (rows.length === 0) return yield* new NotFound({ what: `merchant ${appKey}` })
            yield* makeDueNow(sql, appKey, nowMs)
          })
        ),

      notifyUrlOf: (appKey) =>
        findMerchant(appKey).pipe(
          Effect.map(Option.match({ onNone: () => null, onSome: (row) => row.notifyUrl })),
          badRowIsDefect
        )
    }
    return merchants
  })
