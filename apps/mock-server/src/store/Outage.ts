/**
 * When the database cannot be reached (a PostgreSQL restart or failover), a request is answered
 * serviceUnavailable 503 with `Retry-After` (CONTRACT.md), not internalError 500, which is kept for
 * bugs; the outage is logged once, not once per request, and once more when the database answers
 * again. The pool makes new connections by itself, so nothing else is needed to recover.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Schedule from "effect/Schedule"

/** Seconds a client is told to wait (`Retry-After`): a restart takes about as long. */
export const RETRY_AFTER_SECONDS = 1

// Node's socket errors when the server is not there or drops the connection.
const NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNABORTED"
])

// node-postgres's own words for a connection that ended under it (these errors carry no code).
const LOST_CONNECTION =
  /^Connection terminated|Client has encountered a connection error|Connection timed out|timeout exceeded when trying to connect/

/**
 * Whether a storage failure means the database cannot be reached, rather than a bug: connection
 * refused or reset, SQLSTATE class 08 (connection exception), 57P01-57P03 (the server is shutting
 * down, crashed, or not yet accepting connections). Follows the chain of causes (a SqlError wraps
 * the driver's error).
 *
 * @example
 * ```ts
 * isUnreachable(new SqlError({ cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }) })) // true
 * ```
 */
export const isUnreachable = (error: unknown): boolean => {
  for (let current: unknown = error, depth = 0; typeof current === "object" && current !== null && depth < 8; depth++) {
    const { code, message } = current as { readonly code?: unknown; readonly message?: unknown }
    if (typeof code === "string") {
      if (NETWORK_CODES.has(code) || code.startsWith("08") || /^57P0[123]$/.test(code)) return true
    }
    if (typeof message === "string" && LOST_CONNECTION.test(message)) return true
    current = (current as { readonly cause?: unknown }).cause
  }
  return false
}

/** Notes storage failures that mean the database is away, for the log: once per outage. */
export interface DatabaseOutageShape {
  /**
   * Records that a request could not reach the database. The first of an outage logs a warning
   * and starts watching for the database's return, which is logged too; the rest log nothing.
   */
  readonly noteUnreachable: (error: unknown) => Effect.Effect<void>
}

/**
 * The mock's record of database outages, on the `SqlClient` in context.
 *
 * @example
 * ```ts
 * const outage = yield* DatabaseOutage
 * if (isUnreachable(error)) yield* outage.noteUnreachable(error)
 * ```
 */
export class DatabaseOutage extends Context.Tag("@pc/mock-server/DatabaseOutage")<
  DatabaseOutage,
  DatabaseOutageShape
>() {
  /** Watches in the caller's scope: closing it stops a watch in progress. */
  static readonly make = Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Effect.scope
    let since: number | undefined
    const back = sql`SELECT 1`.pipe(
      Effect.retry(Schedule.spaced("250 millis")),
      Effect.zipRight(
        Effect.suspend(() => {
          const seconds = since === undefined ? 0 : (Date.now() - since) / 1000
          since = undefined
          return Effect.logInfo(`database reachable again after ${seconds.toFixed(1)} s; serving requests again`)
        })
      )
    )
    const noteUnreachable = (error: unknown): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (since !== undefined) return Effect.void
        since = Date.now()
        const cause = error instanceof Error ? describe(error) : String(error)
        return Effect.logWarning(
          `database unreachable (${cause}): answering serviceUnavailable 503 with Retry-After until it is back`
        ).pipe(
          // The watch is the mock's, not the request's that noticed the outage: no request id on its line.
          Effect.zipRight(Effect.forkIn(Effect.locally(back, FiberRef.currentLogAnnotations, HashMap.empty()), scope)),
          Effect.asVoid
        )
      })
    return { noteUnreachable } satisfies DatabaseOutageShape
  })
}

/** The innermost message of an error's causes: the driver's words, not the SqlError's. */
const describe = (error: Error): string => {
  let message = error.message
  for (let current: unknown = error.cause, depth = 0; current instanceof Error && depth < 8; depth++) {
    message = current.message
    current = current.cause
  }
  return message
}
