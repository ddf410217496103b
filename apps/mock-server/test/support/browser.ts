// A headless Debian Chromium for page tests: every request that is not to the loopback mock is
// aborted and recorded (a page that reaches outside the machine fails its test), and screenshots
// go to test-artifacts/ (gitignored) for a person to look at.
import { assertChromium, chromiumArgs } from "@pc/chromium"
import { mkdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"

export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test-artifacts")

export const launch = (): Promise<Browser> =>
  chromium.launch({ executablePath: assertChromium(), args: [...chromiumArgs], headless: true })

const isLoopback = (url: string): boolean => {
  try {
    const { protocol, hostname } = new URL(url)
    if (protocol === "data:" || protocol === "blob:" || protocol === "about:") return true
    return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]"
  } catch {
    return false
  }
}

/** A page whose every non-loopback request is aborted; `outside` lists what was attempted. */
export const guardedPage = async (
  browser: Browser,
  viewport: { readonly width: number; readonly height: number } = { width: 1280, height: 900 }
): Promise<{ readonly page: Page; readonly outside: Array<string> }> => {
  const context = await browser.newContext({ viewport })
  const outside: Array<string> = []
  await context.route("**/*", (route) => {
    const url = route.request().url()
    if (isLoopback(url)) return route.continue()
    outside.push(url)
    return route.abort("blockedbyclient")
  })
  const page = await context.newPage()
  return { page, outside }
}

/** Writes a screenshot to test-artifacts/<name>.png (the whole page unless `fullPage` is false). */
export const screenshot = async (page: Page, name: string, fullPage = true): Promise<string> => {
  mkdirSync(ARTIFACTS, { recursive: true })
  const path = join(ARTIFACTS, `${name}.png`)
  await page.screenshot({ path, fullPage })
  return path
}

/** Whether the page scrolls sideways: its content wider than its viewport. */
export const horizontalOverflow = (page: Page) =>
  page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth
  }))
