// The platform's signing keys (table `platform_keys`): exactly one is current and signs callbacks;
// earlier ones stay published so merchants can still verify what they signed.
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { isoTime } from "./IsoTime.js"
import { badRowIsDefect, PlatformKey } from "./Records.js"

/** A new key pair to store, made at `nowMs`. */
export interface PlatformKeyDraft {
  readonly privateKeyPem: string
  readonly publicKeyPem: string
  readonly nowMs: number
}

/** Platform keys, as the store offers them. */
export interface PlatformKeyStore {
  /** Every platform key, oldest first. */
  readonly platformKeys: Effect.Effect<ReadonlyArray<PlatformKey>, SqlError>

  /**
   * The current platform key, making `initial` version 1 when there is none yet. Replicas starting
   * together on a fresh database each offer a key; exactly one becomes version 1 and all of them
   * sign with it.
   */
  readonly currentPlatformKey: (initial: PlatformKeyDraft) => Effect.Effect<PlatformKey, SqlError>

  /**
   * Adds a new platform key. By default it signs from now on and the previous current one stays
   * published; with `publishOnly` it is only `published`, until {@link activatePlatformKey}.
   */
  readonly addPlatformKey: (
    input: PlatformKeyDraft,
    options?: { readonly publishOnly?: boolean }
  ) => Effect.Effect<PlatformKey, SqlError>

  /** Makes a published key current; the previous current one stays published. `undefined`: no such published key. */
  readonly activatePlatformKey: (version: number) => Effect.Effect<PlatformKey | undefined, SqlError>

  /** Retires a published key that is not current. `undefined`: no such published key. */
  readonly retirePlatformKey: (version: number) => Effect.Effect<PlatformKey | undefined, SqlError>
}

const NextVersion = Schema.Struct({ next: Schema.Number })

/**
 * The platform key store on the `SqlClient` in context.
 *
 * @example
 * ```ts
 * const keys = yield* makePlatformKeyStore
 * const signing = yield* keys.currentPlatformKey({ privateKeyPem, publicKeyPem, nowMs: Date.now() })
 * ```
 */
export const makePlatformKeyStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const all = SqlSchema.findAll({
    Request: Schema.Void,
    Result: PlatformKey,
    execute: () => sql`SELECT * FROM platform_keys ORDER BY version`
  })
  const current = SqlSchema.single({
    Request: Schema.Void,
    Result: PlatformKey,
    execute: () => sql`SELECT * FROM platform_keys WHERE status = 'current'`
  })
  const nextVersion = SqlSchema.single({
    Request: Schema.Void,
    Result: NextVersion,
    execute: () => sql`SELECT COALESCE(MAX(version), 0) + 1 AS next FROM platform_keys`
  })

  const keys: PlatformKeyStore = {
    platformKeys: all().pipe(badRowIsDefect),

    currentPlatformKey: (initial) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO platform_keys (version, private_key_pem, public_key_pem, status, created_at)
        VALUES (1, ${initial.privateKeyPem}, ${initial.publicKeyPem}, 'current', ${isoTime(initial.nowMs)})
        ON CONFLICT DO NOTHING`
        return yield* current()
      }).pipe(badRowIsDefect),

    addPlatformKey: (input, options) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const { next: version } = yield* nextVersion()
          const status = options?.publishOnly === true ? "published" : "current"
          if (status === "current") yield* sql`UPDATE platform_keys SET status = 'published' WHERE status = 'current'`
          const key: PlatformKey = {
            version,
            privateKeyPem: input.privateKeyPem,
            publicKeyPem: input.publicKeyPem,
            status,
            createdAt: isoTime(input.nowMs)
          }
          yield* sql`INSERT INTO platform_keys (version, private_key_pem, public_key_pem, status, created_at)
          VALUES (${version}, ${key.privateKeyPem}, ${key.publicKeyPem}, ${status}, ${key.createdAt})`
          return key
        }).pipe(badRowIsDefect)
      ),

    activatePlatformKey: (version) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const key = (yield* all()).find((k) => k.version === version && k.status === "published")
          if (key === undefined) return undefined
          yield* sql`UPDATE platform_keys SET status = 'published' WHERE status = 'current'`
          yield* sql`UPDATE platform_keys SET status = 'current' WHERE version = ${version}`
          return { ...key, status: "current" as const }
        }).pipe(badRowIsDefect)
      ),

    retirePlatformKey: (version) =>
      Effect.gen(function* () {
        const key = (yield* all()).find((k) => k.version === version && k.status === "published")
        if (key === undefined) return undefined
        yield* sql`UPDATE platform_keys SET status = 'retired' WHERE version = ${version} AND status = 'published'`
        return { ...key, status: "retired" as const }
      }).pipe(badRowIsDefect)
  }
  return keys
})
