/**
 * `@pc/client/replay-sql`: the replay guard on a database table through `@effect/sql`. Its own entry
 * point, so that only merchants who use it need `@effect/sql`.
 *
 * @since 0.1.0
 */
export * as ReplaySql from "./ReplaySql.js"
