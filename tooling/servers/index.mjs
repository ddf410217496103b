// Throwaway servers for tests (PostgreSQL, MariaDB, Redis), and the Debian packages that provide them (see SystemPackages.mjs).
export { startPostgres, postgresBinDir } from "./Postgres.mjs"
export { freePort } from "./internal.mjs"
export { startMariadb, mariadbBinaries } from "./Mariadb.mjs"
export { startRedis, redisServerPath } from "./Redis.mjs"
export { systemPackages, missingSystemPackages, excludedWithout } from "./SystemPackages.mjs"
