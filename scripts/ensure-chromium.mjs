// Browser tests run in Debian's Chromium. On a fresh machine where it is missing and we may install
// packages (root with apt-get), install it; otherwise stop with a message that says what to do.
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { chromiumExecutable } from "../tooling/chromium/index.mjs"

if (!existsSync(chromiumExecutable)) {
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")
  if (!canInstall) {
    console.error(
      `Chromium is needed for the browser tests and was not found at ${chromiumExecutable}.\n` +
        "Install Debian's package (sudo apt-get install -y chromium) or point CHROMIUM_PATH at a Chromium binary."
    )
    process.exit(1)
  }
  console.log("Installing Debian's chromium for the browser tests (about 20 s)...")
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" })
  execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  })
}
console.log(`Browser tests use ${chromiumExecutable}`)
