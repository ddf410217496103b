// The README's quick start, run as written: the three commands are read from the `pc-quickstart`
// block of apps/cli/README.md (and the root README must show the same three), each run with the
// built `pc` as a separate process. Only what a shared test machine needs changes: the mock gets a
// free port (`--port 0`; the other two find it through PC_BASE_URL, as they would find 4010 by
// default) and the endpoint's URL is a receiver of this test. The listener must print a verified
// order.paid, the receiver must get the mock's exact bytes with signature headers that verify, and
// nothing piped may hold a control character (no spinner, no colour).
import { createCallbackVerifier } from "@pc/client/promise"
import { NodeCrypto } from "@pc/crypto-node"
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigDir, pc, pcBackground, pcJson, ROOT, type Running } from "./support/Pc.js"
import { type Receiver, startReceiver } from "@pc/test-support"

/** The command lines of a README's `pc-quickstart` block, comments and the `npx` launcher left out. */
const quickStart = (readme: string): Array<Array<string>> => {
  const block = /<!-- pc-quickstart -->\s*```sh\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, readme), "utf8"))
  if (block === null) throw new Error(`${readme} has no pc-quickstart block`)
  return block[1]!
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "")
    .map((line) => {
      // Plain words only: a quote or a shell operator here would need a shell to run as written.
      expect(line).not.toMatch(/['"`$|&;<>\\]/)
      const words = line.split(/\s+/)
      expect(words.slice(0, 2)).toEqual(["npx", "pc"])
      return words.slice(2)
    })
}

const ENDPOINT = "http://localhost:3000/webhooks/payment"
/** The characters that are neither printable nor a line break: ESC of a colour or a spinner, a carriage return. */
const controlCharacters = (text: string): Array<string> =>
  [...text].filter((c) => (c.charCodeAt(0) < 32 && c !== "\n") || c.charCodeAt(0) === 127)

let receiver: Receiver
const running: Array<Running> = []

beforeAll(async () => {
  receiver = await startReceiver(200, { path: "/webhooks/payment" })
})

afterAll(async () => {
  for (const process of running) {
    process.child.kill("SIGTERM")
    await process.exited
  }
  await receiver?.close()
})

describe("the README's quick start", () => {
  it("is three commands, the same in apps/cli/README.md and the root README", () => {
    const commands = quickStart("apps/cli/README.md")
    expect(commands).toHaveLength(3)
    expect(quickStart("README.md")).toEqual(commands)
  })

  it("gets from a key pair to a verified, forwarded order.paid", async () => {
    const [mockCommand, createCommand, listenCommand] = quickStart("apps/cli/README.md") as [
      Array<string>,
      Array<string>,
      Array<string>
    ]
    expect(listenCommand).toContain(ENDPOINT)
    // A newcomer's directory and profile: nothing from another test or from the user.
    const cwd = mkdtempSync(join(tmpdir(), "pc-quickstart-"))
    const configDir = freshConfigDir()
    // NO_COLOR empty (as unset): what is plain below is plain because it is piped.

    // Terminal 1.
    const mock = pcBackground([...mockCommand, "--port", "0"], {
      cwd,
      env: { PC_CONFIG_DIR: configDir, NO_COLOR: "" }
    })
    running.push(mock)
    const ready = await mock.waitForLine((line) => /listening on http:\/\/127\.0\.0\.1:\d+/.test(line), "the mock")
    const mockUrl = /(http:\/\/127\.0\.0\.1:\d+)/.exec(ready)![1]!
    const env = { PC_CONFIG_DIR: configDir, PC_BASE_URL: mockUrl, NO_COLOR: "" }

    // Terminal 2: the key pair, registered and saved.
    const created = await pc(createCommand, { cwd, env })
    expect(created.code, created.stderr).toBe(0)
    const appKey = /created merchant ([0-9a-f-]{36}) \(key version 1\)/.exec(created.stdout)?.[1]
    expect(appKey, created.stdout).toBeDefined()
    expect(statSync(join(cwd, "keys/merchant-private.pem")).mode & 0o777).toBe(0o600)
    expect(existsSync(join(cwd, "keys/merchant-public.pem"))).toBe(true)
    const profile = JSON.parse(readFileSync(join(configDir, "config.json"), "utf8"))
    expect(profile).toMatchObject({ "app-key": appKey, "key-file": join(cwd, "keys/merchant-private.pem") })
    expect(JSON.stringify(profile)).not.toContain("PRIVATE KEY")

    // Then the listener, which triggers order.paid itself.
    const listener = pcBackground(
      listenCommand.map((word) => (word === ENDPOINT ? receiver.url : word)),
      { cwd, env }
    )
    running.push(listener)
    const triggered = await listener.waitForLine((line) => line.startsWith("triggered order.paid"), "the trigger")
    const orderSn = /order (PC\S+)/.exec(triggered)![1]!
    const shown = await listener.waitForLine((line) => line.includes(` order.paid ${orderSn} `), "the callback")
    expect(shown).toMatch(/10\.00 USD key v1 verified -> \S+ 200 \[answered 200\]$/)
    expect(shown).toContain(receiver.url)

    // The receiver got the bytes the mock signed and sent, with headers that verify.
    const deliveries = await fetch(`${mockUrl}/dev/callbacks?orderSn=${orderSn}`).then((r) => r.json())
    expect(receiver.received).toHaveLength(1)
    expect(receiver.received[0]!.headers["content-type"]).toBe("application/json")
    expect(receiver.received[0]!.body).toBe(deliveries.data[0].body)
    const platformKeys = (await fetch(`${mockUrl}/dev/platform-keys`).then((r) => r.json())).data as Array<{
      version: number
      publicKeyPem: string
    }>
    const verifier = await createCallbackVerifier({
      environment: "sandbox",
      appKey: appKey!,
      crypto: NodeCrypto,
      platformKeys: { sandbox: Object.fromEntries(platformKeys.map((k) => [k.version, k.publicKeyPem])) }
    })
    const event = await verifier.verifyCallback({
      headers: receiver.received[0]!.headers,
      body: receiver.received[0]!.rawBody
    })
    expect(event).toMatchObject({ eventType: "order.paid", orderSn, amount: "10.00", currency: "USD" })
    expect(deliveries.data[0].attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([200])

    // Piped, as here: plain lines only.
    for (const text of [created.stdout, created.stderr, listener.stdout(), listener.stderr()]) {
      expect(controlCharacters(text)).toEqual([])
    }
  }, 240_000)

  it("merchants create takes --generate-key alone, or --public-key; never overwrites keys (exit 2)", async () => {
    const env = { PC_CONFIG_DIR: freshConfigDir(), PC_BASE_URL: "http://127.0.0.1:9" }
    const cwd = mkdtempSync(join(tmpdir(), "pc-quickstart-"))
    const neither = await pcJson(["merchants", "create"], { cwd, env })
    expect(neither.code).toBe(2)
    expect(neither.json).toMatchObject({ error: { kind: "Usage", hint: "pc merchants create --generate-key ./keys" } })
    const both = await pcJson(["merchants", "create", "--generate-key", "./keys", "--key-file", "x.pem"], { cwd, env })
    expect(both.code).toBe(2)
    expect(existsSync(join(cwd, "keys"))).toBe(false)
    // A pair already there (a second run of the quick start) is kept, and the hint registers it.
    const first = await pcJson(["keys", "generate", "--out", "./keys"], { cwd, env })
    expect(first.code, first.stderr).toBe(0)
    const before = readFileSync(join(cwd, "keys/merchant-private.pem"), "utf8")
    const again = await pcJson<{ error: { hint: string } }>(["merchants", "create", "--generate-key", "./keys"], {
      cwd,
      env
    })
    expect(again.code).toBe(2)
    expect(again.json.error.hint).toContain(
      "--public-key ./keys/merchant-public.pem --key-file ./keys/merchant-private.pem"
    )
    expect(readFileSync(join(cwd, "keys/merchant-private.pem"), "utf8")).toBe(before)
  }, 120_000)
})
