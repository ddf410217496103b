// Throwaway servers for tests, and the Debian packages that provide them (see SystemPackages.mjs).
export { startPostgres, postgresBinDir } from "./Postgres.mjs"
export { freePort } from "./internal.mjs"
export { startRedis, redisServerPath } from "./Redis.mjs"
export { systemPackages, missingSystemPackages } from "./SystemPackages.mjs"
