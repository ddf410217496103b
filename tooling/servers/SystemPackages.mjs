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
  },
  {
    name: "tmux",
    purpose: "pc listen in a real terminal (apps/cli/test/Tmux.test.ts)",
    installed: () => existsSync("/usr/bin/tmux")
  },
  // The container image test (tooling/container): the Containerfile built and run with podman on
  // runc, compose.yaml with podman-compose, the base images' stand-ins from mmdebstrap.
  ...[
    ["podman", "/usr/bin/podman", "the container image test: builds and runs the Containerfile"],
    ["buildah", "/usr/bin/buildah", "the container image test: the image builder podman build uses"],
    ["runc", "/usr/sbin/runc", "the container image test: the OCI runtime that works here"],
    ["podman-compose", "/usr/bin/podman-compose", "the container image test: compose.yaml up and down"],
    [
      "mmdebstrap",
      "/usr/bin/mmdebstrap",
      "the container image test: Debian root filesystems for the base image stand-ins"
    ]
  ].map(([name, path, purpose]) => ({ name, purpose, installed: () => existsSync(path) }))
]

export const missingSystemPackages = () => systemPackages.filter((pkg) => !pkg.installed())

/**
 * The test files to leave out of a run, given what each needs (`{ "test/Store.test.ts":
 * ["postgresql"] }`): those that need a package that is missing while PC_NO_SYSTEM_PACKAGES=1 asked
 * that nothing be installed. Each one left out is printed with the reason, so the run says which
 * suites it skipped. Without that variable nothing is left out: a missing package fails its suite
 * with its own message, as before.
 */
export const excludedWithout = (needs) => {
  if (process.env.PC_NO_SYSTEM_PACKAGES !== "1") return []
  const missing = new Set(missingSystemPackages().map((pkg) => pkg.name))
  return Object.entries(needs).flatMap(([file, names]) => {
    const absent = names.filter((name) => missing.has(name))
    if (absent.length === 0) return []
    console.warn(`skipped ${file}: needs ${absent.join(", ")}, not installed (PC_NO_SYSTEM_PACKAGES=1)`)
    return [file]
  })
}
