/**
 * `@pc/client/replay-redis`: the replay guard on Redis, through the ioredis or node-redis client
 * you keep. Its own entry point; it imports no Redis driver.
 *
 * @since 0.1.0
 */
export * as ReplayRedis from "./ReplayRedis.js"
