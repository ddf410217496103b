// The Debian packages the tests need, and whether each is present: the root setup script
// (scripts/ensure-system-packages.mjs) installs the missing ones, or says how.
import { existsSync } from "node:fs"
import { chromiumExecutable } from "../chromium/index.mjs"
import { mariadbBinaries } from "./Mariadb.mjs"
import { postgresBinDir } from "./Postgres.mjs"
import { redisServerPath } from "./Redis.mjs"

export const systemPackages = [
  {
    name: "chromium",
    purpose: "browser tests (Vitest browser mode, Playwright)",
    installed: () => existsSync(chromiumExecutable)
  },
  {
    name: "postgresql",
    purpose: "the mock's PostgreSQL store and the SQL replay guard",
    installed: () => postgresBinDir() !== undefined
  },
  {
    name: "mariadb-server",
    purpose: "the SQL replay guard on MySQL/MariaDB",
    installed: () => mariadbBinaries() !== undefined
  },
  {
    name: "redis-server",
    purpose: "the Redis replay guard",
    installed: () => redisServerPath() !== undefined
  }
]

export const missingSystemPackages = () => systemPackages.filter((pkg) => !pkg.installed())
