// `--json` on every command: each command `pc --help` lists is run here with `--json` against a
// real production mock, and must exit 0 with one JSON document on stdout and nothing else there
// (the streams, `listen` and `logs tail`, one document per line). A new command without a case
// here fails the first test. `pc mock` is the one exception: it is the server, and its ready
// lines are for people (CONTRACT.md "Running the mock").
import { Testing } from "@pc/client"
import { KeyPair } from "@pc/crypto-node"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { leafCommands, listCommands } from "./support/Commands.js"
import { type Mock, startMock, TEST_MERCHANT_APP_KEY } from "@pc/test-support/mock"
import { startFlawedEndpoint } from "@pc/test-support"
import { freshConfigDir, merchantEnv, pcBackground, pcJson, type Running } from "./support/Pc.js"

const dir = mkdtempSync(join(tmpdir(), "pc-json-"))
let mock: Mock
let env: Record<string, string>
let leaves: Array<string> = []

beforeAll(async () => {
  mock = await startMock({ environment: "production" })
  env = merchantEnv(mock, "production", freshConfigDir())
  leaves = leafCommands(await listCommands()).map((path) => path.join(" "))
}, 60_000)
afterAll(() => mock?.close())

/** Marks the command `args` run (the longest listed command they start with) as covered. */
const cover = (args: ReadonlyArray<string>) => {
  const line = `${args.join(" ")} `
  const leaf = leaves.filter((name) => line.startsWith(`${name} `)).sort((a, b) => b.length - a.length)[0]
  if (leaf !== undefined) covered.add(leaf)
}

/** Runs `pc ...args --json`: exit 0 and one JSON document, which is returned. */
const run = async <A = Record<string, unknown>>(args: ReadonlyArray<string>): Promise<A> => {
  const ran = await pcJson<A>(args, { env })
  expect(ran.code, `pc ${args.join(" ")} --json: ${ran.stdout}${ran.stderr}`).toBe(0)
  cover(args)
  return ran.json
}

/** Runs a stream command with `--json` until `until` is satisfied; every line it printed is one JSON document. */
const stream = async (args: ReadonlyArray<string>, until: (running: Running) => Promise<unknown>) => {
  const running = pcBackground([...args, "--json"], { env })
  try {
    await until(running)
    const lines = running.stdout().trim().split("\n")
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
    cover(args)
  } finally {
    running.child.kill("SIGTERM")
    await running.exited
  }
}

/** Until `pc logs tail` says on stderr that it follows the mock. */
const tailing = async (running: Running) => {
  while (!running.stderr().includes("tailing the requests")) {
    if (running.child.exitCode !== null) throw new Error(`pc logs tail ended: ${running.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const covered = new Set<string>()

describe("--json", () => {
  it("parses for every command", async () => {
    const body = '{"orderId":"JSON-0","amount":"1.00","currency":"USD"}'
    const keys = await run<{ publicKeyFile: string }>(["keys", "generate", "--out", join(dir, "keys")])
    await run(["keys", "inspect", keys.publicKeyFile])
    await run(["sign", "--body", body])
    await run(["config", "set", "env", "production"])
    await run(["config", "show"])
    await run(["config", "unset", "env"])

    const platform = await Testing.generatePlatformKey()
    writeFileSync(join(dir, "platform-private.pem"), platform.privateKeyPem, { mode: 0o600 })
    writeFileSync(join(dir, "platform-public.pem"), platform.publicKeyPem)
    writeFileSync(join(dir, "event.json"), JSON.stringify(Testing.callbackEvent({ eventType: "order.paid" })))
    const signed = await run<{ headers: Record<string, string> }>([
      "callbacks",
      "sign",
      "--body",
      `@${join(dir, "event.json")}`,
      "--platform-key",
      join(dir, "platform-private.pem")
    ])
    await run([
      "callbacks",
      "verify",
      "--body",
      `@${join(dir, "event.json")}`,
      "--ts",
      signed.headers["X-R-Ts"]!,
      "--signature",
      signed.headers["X-R-Signature"]!,
      "--key-version",
      signed.headers["X-R-Key-Version"]!,
      "--platform-key",
      join(dir, "platform-public.pem")
    ])

    await run(["merchants", "create", "--public-key", keys.publicKeyFile])
    await run(["merchants", "show"])
    writeFileSync(join(dir, "second-public.pem"), (await KeyPair.generate()).publicKeyPem)
    const added = await run<{ keyVersion: number }>(["merchants", "keys", "add", join(dir, "second-public.pem")])
    await run(["merchants", "keys", "disable", String(added.keyVersion)])
    await run(["merchants", "keys", "enable", String(added.keyVersion)])
    await run(["platform-keys", "list"])
    // Publish first, then make it sign on the second rotate; --now does both at once.
    expect((await run<{ status: string }>(["platform-keys", "rotate"])).status).toBe("published")
    expect((await run<{ status: string }>(["platform-keys", "rotate"])).status).toBe("current")
    expect((await run<{ status: string }>(["platform-keys", "rotate", "--now"])).status).toBe("current")

    const orders = await Promise.all(
      ["JSON-1", "JSON-2", "JSON-3"].map((orderId) =>
        run<{ orderSn: string }>(["orders", "create", "--order-id", orderId, "--amount", "1.00", "--currency", "USD"])
      )
    )
    await run(["orders", "pay", orders[0]!.orderSn])
    await run(["orders", "fail", orders[1]!.orderSn])
    await run(["orders", "expire", orders[2]!.orderSn])
    const shown = await run<{ callbacks: Array<{ id: string }> }>(["orders", "show", orders[0]!.orderSn])
    await run(["callbacks", "resend", shown.callbacks[0]!.id])
    await run(["trigger", "order.paid"])
    await run(["clock", "show"])
    await run(["clock", "advance", "1m"])
    await run(["faults", "set", '{"seed":7,"createOrder":{"delayMs":[0,1]}}'])
    await run(["faults", "show"])
    await run(["faults", "clear"])
    // A correct endpoint (the audit tests' Node endpoint with no flaw): the audit passes, exit 0.
    const endpoint = await startFlawedEndpoint(mock.url, TEST_MERCHANT_APP_KEY, "none")
    try {
      const report = await run<{ passed: boolean }>(["callbacks", "audit", endpoint.url])
      expect(report.passed).toBe(true)
    } finally {
      await endpoint.close()
    }

    // listen --trigger: ready, then the trigger and its callback, each line a document of its type.
    await stream(["listen", "--trigger", "order.paid"], async (running) => {
      await running.waitForLine((line) => line.includes('"type":"callback"'), "the callback")
      await running.waitForLine((line) => line.includes('"type":"triggered"'), "the trigger")
      const types = running
        .stdout()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).type)
      // Earlier orders' callbacks, retried now that there is a notify URL, may come too (even
      // between setting the notify URL and the ready line).
      expect(types.filter((type) => type === "ready")).toHaveLength(1)
      expect(types.filter((type) => type === "triggered")).toHaveLength(1)
      expect(new Set(types)).toEqual(new Set(["ready", "triggered", "callback"]))
    })
    await stream(["logs", "tail"], async (running) => {
      await tailing(running)
      await fetch(`${mock.url}/healthz`)
      await running.waitForLine((line) => line.includes('"path":"/healthz"'), "the request")
    })

    expect(leaves).toEqual(expect.arrayContaining(["mock", "merchants keys add", "logs tail", "trigger"]))
    const missing = leaves.filter((leaf) => leaf !== "mock" && !covered.has(leaf))
    expect(missing, "commands without a --json case here").toEqual([])
  }, 300_000)
})
