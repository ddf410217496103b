// The tests use real servers and a real browser from Debian's packages: chromium, postgresql,
// mariadb-server, redis-server, and podman with buildah, runc, podman-compose and mmdebstrap (see
// tooling/servers/SystemPackages.mjs). On a machine where some are missing and we may install
// packages (root with apt-get), install them (one apt-get update, one install); otherwise stop with
// a message that says what to do. Nothing downloads a browser or a server of its own.
//
// The tests start their own throwaway servers; the packages' system services must not run. Their
// postinst scripts start them through invoke-rc.d, which asks /usr/sbin/policy-rc.d first: where
// there is none (a container without Docker's, a VM), one that denies every start is put there for
// the install and removed after, so that apt-get leaves no postgres, mariadbd or redis-server
// running behind the tests (nor podman's API socket). Their postinst scripts also enable the
// services at boot (deb-systemd-helper makes the multi-user.target.wants links whatever policy-rc.d says): the links
// the install added are removed after it, so the machine boots as it did before.
//
// PC_NO_SYSTEM_PACKAGES=1 installs nothing: the suites that need a missing package are left out of
// the run, each named with the reason (tooling/servers' excludedWithout, crypto-web's config).
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { missingSystemPackages, systemPackages } from "../tooling/servers/SystemPackages.mjs"

/** The services enabled at boot: the links in /etc/systemd/system/*.wants/. */
const bootLinks = () => {
  const root = "/etc/systemd/system"
  if (!existsSync(root)) return []
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.endsWith(".wants"))
    .flatMap((dir) => readdirSync(join(root, dir.name)).map((name) => join(root, dir.name, name)))
}

const missing = missingSystemPackages()
if (missing.length > 0 && process.env.PC_NO_SYSTEM_PACKAGES === "1") {
  console.log(
    "PC_NO_SYSTEM_PACKAGES=1: nothing is installed; the suites that need these are skipped:\n" +
      missing.map((pkg) => `  ${pkg.name}: ${pkg.purpose}`).join("\n")
  )
  process.exit(0)
}
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
  const enabledBefore = new Set(bootLinks())
  try {
    execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...names], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
    })
  } finally {
    if (ownPolicy) rmSync(policy, { force: true })
    // Enabled by the install: disabled again (systemctl disable works without a running systemd;
    // where there is none, the link itself is removed).
    for (const link of bootLinks().filter((link) => !enabledBefore.has(link))) {
      const unit = link.slice(link.lastIndexOf("/") + 1)
      try {
        execFileSync("systemctl", ["disable", "--quiet", unit], { stdio: "ignore" })
      } catch {}
      rmSync(link, { force: true })
      console.log(`left ${unit} disabled at boot, as it was before the install`)
    }
  }
  const still = missingSystemPackages()
  if (still.length > 0) {
    console.error(`apt-get ran, but these are still missing: ${still.map((pkg) => pkg.name).join(", ")}`)
    process.exit(1)
  }
}
console.log(`System packages for the tests: ${systemPackages.map((pkg) => pkg.name).join(", ")} (installed)`)
