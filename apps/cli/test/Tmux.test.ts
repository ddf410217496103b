// `pc listen` in a real terminal (Debian's tmux): it shows that it is ready and a progress line
// (spinner and counts), prints a verified order.paid readably above it when `pc trigger` moves an
// order, and stops on Ctrl-C. tmux is one of the system packages the test command installs
// (tooling/servers/SystemPackages.mjs); with PC_NO_SYSTEM_PACKAGES=1 and no tmux the file is left
// out and named (vitest.config.ts).
import { execFileSync, spawnSync } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, pcCommand, pcJson, ROOT, testMerchant } from "./support/Pc.js"

const missing = spawnSync("tmux", ["-V"]).status === 0 ? undefined : "tmux is not installed"
const socket = `pc-cli-test-${process.pid}`
const session = "listen"
const tmux = (...args: Array<string>) => execFileSync("tmux", ["-L", socket, ...args]).toString()
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

let mock: Mock
beforeAll(async () => {
  if (missing === undefined) mock = await startMock()
}, 60_000)
afterAll(async () => {
  if (missing === undefined) spawnSync("tmux", ["-L", socket, "kill-server"])
  await mock?.close()
})

const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
const screen = () => tmux("capture-pane", "-p", "-t", session)

const waitForScreen = async (match: RegExp, what: string) => {
  for (let i = 0; i < 1200; i++) {
    const text = screen()
    if (match.test(text)) return text
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`the screen never showed ${what}:\n${screen()}`)
}

describe.skipIf(missing !== undefined)(`pc listen in tmux${missing ? ` (skipped: ${missing})` : ""}`, () => {
  it("shows Ready! and a turning progress line, then a verified order.paid above it, and stops on Ctrl-C", async () => {
    const env = { PC_CONFIG_DIR: freshConfigDir(), PC_BASE_URL: mock.url, PC_APP_KEY: testMerchant.appKey }
    const [command, args] = pcCommand(["listen"])
    const line = [
      "env",
      "NODE_OPTIONS=",
      ...Object.entries(env).map(([k, v]) => quote(`${k}=${v}`)),
      quote(command),
      ...args.map(quote)
    ].join(" ")
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "40", "-c", ROOT)
    tmux("set-option", "-t", session, "remain-on-exit", "on")
    tmux("respawn-pane", "-k", "-t", session, line)
    await waitForScreen(/Ready! listening on http:\/\/127\.0\.0\.1:\d+\//, "Ready!")
    // The progress line: a spinner below the output, turning (another frame seen), with the counts.
    const waiting = " waiting for callbacks: 0 verified, 0 refused \\(Ctrl-C to stop\\)"
    const first = new RegExp(`([${frames}])${waiting}`).exec(
      await waitForScreen(new RegExp(`[${frames}]${waiting}`), "the spinner")
    )![1]!
    await waitForScreen(new RegExp(`[${frames.replace(first, "")}]${waiting}`), "the spinner turning")

    const keyFile = `${freshConfigDir()}/merchant-private.pem`
    const { writeFileSync } = await import("node:fs")
    writeFileSync(keyFile, testMerchant.privateKeyPem(), { mode: 0o600 })
    const triggered = await pcJson<{ orderSn: string }>(["trigger", "order.paid"], {
      env: { ...env, PC_KEY_FILE: keyFile }
    })
    expect(triggered.code, triggered.stderr).toBe(0)
    // pc trigger waited for the delivery and reports the listener's answer.
    expect(triggered.json).toMatchObject({ delivery: { status: "delivered", attempt: { httpStatus: 200 } } })
    const shown = await waitForScreen(new RegExp(`order\\.paid ${triggered.json.orderSn} .* verified`), "the callback")
    expect(shown).toMatch(/10\.00 USD key v1 verified \[answered 200\]/)
    // The callback line stays whole above the progress line, which now counts it.
    await waitForScreen(new RegExp(`[${frames}] waiting for callbacks: 1 verified, 0 refused`), "the count")
    const lines = screen().split("\n")
    const callbackRow = lines.findIndex((row) => row.includes(triggered.json.orderSn))
    expect(lines[callbackRow]).toMatch(/verified \[answered 200\]\s*$/)
    expect(lines.slice(callbackRow + 1).join("\n")).toMatch(
      new RegExp(`^\\s*[${frames}] waiting for callbacks: 1 verified`)
    )

    tmux("send-keys", "-t", session, "C-c")
    for (let i = 0; i < 300 && tmux("list-panes", "-t", session, "-F", "#{pane_dead}").trim() !== "1"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(tmux("list-panes", "-t", session, "-F", "#{pane_dead}").trim()).toBe("1")
  }, 240_000)
})
