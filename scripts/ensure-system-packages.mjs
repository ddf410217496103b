// The tests use real servers and a real browser from Debian's packages: chromium, postgresql,
// mariadb-server and redis-server (see tooling/servers/SystemPackages.mjs). On a machine where some
// are missing and we may install packages (root with apt-get), install them (one apt-get update,
// one install); otherwise stop with a message that says what to do. Nothing downloads a browser or a server of
// its own.
//
// The tests start their own throwaway servers; the packages' system services must not run. Their
// postinst scripts start them through invoke-rc.d, which asks /usr/sbin/policy-rc.d first: where
// there is none (a container without Docker's, a VM), one that denies every start is put there for
// the install and removed after, so that apt-get leaves no postgres, mariadbd or redis-server
// running behind the tests.
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs"
import { missingSystemPackages, systemPackages } from "../tooling/servers/SystemPackages.mjs"

const missing = missingSystemPackages()
if (missing.length > 0) {
  const names = missing.map((pkg) => pkg.name)
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")
  if (!canInstall) {
    console.error(
      `The tests need Debian packages that are not installed:\n` +
        missing.map((pkg) => `  ${pkg.name}: ${pkg.purpose}`).join("\n") +
        `\nInstall them (sudo apt-get update && sudo apt-get install -y ${names.join(" ")}), or point ` +
        "CHROMIUM_PATH, PG_BIN (PostgreSQL's bin directory), MARIADB_BIN (a directory with mariadbd, mariadb-install-db and mariadb) or REDIS_SERVER at binaries you have."
    )
    process.exit(1)
  }
  console.log(`Installing Debian's ${names.join(", ")} for the tests...`)
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" })
  const policy = "/usr/sbin/policy-rc.d"
  const ownPolicy = !existsSync(policy)
  if (ownPolicy) {
    writeFileSync(
      policy,
      "#!/bin/sh\n# Put here by scripts/ensure-system-packages.mjs for one apt-get install: start no service.\nexit 101\n"
    )
    chmodSync(policy, 0o755)
  }
  try {
    execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...names], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
    })
  } finally {
    if (ownPolicy) rmSync(policy, { force: true })
  }
  const still = missingSystemPackages()
  if (still.length > 0) {
    console.error(`apt-get ran, but these are still missing: ${still.map((pkg) => pkg.name).join(", ")}`)
    process.exit(1)
  }
}
console.log(`System packages for the tests: ${systemPackages.map((pkg) => pkg.name).join(", ")} (installed)`)
