// Tests use Debian's Chromium (apt-get install chromium): no tool may download a browser of its own.
import { existsSync } from "node:fs"

/** Path of the Chromium binary: $CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
export const chromiumExecutable = process.env.CHROMIUM_PATH || "/usr/bin/chromium"

/**
 * Flags for a headless Chromium on a machine with no network but loopback: no sandbox (tests run
 * as root), no GPU, and none of the background connections that the closed network would refuse.
 */
export const chromiumArgs = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run"
]

/** Throws a clear error when the browser is missing, instead of a cryptic launch failure later. */
export const assertChromium = () => {
  if (!existsSync(chromiumExecutable)) {
    throw new Error(
      `Chromium not found at ${chromiumExecutable}. Install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH.`
    )
  }
  return chromiumExecutable
}
