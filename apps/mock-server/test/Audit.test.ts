// The callback endpoint audit against real endpoints on 127.0.0.1 (Node and Python): a correct
// receiver passes, each planted flaw fails the check it breaks, hostile endpoints end in time.
import type * as CallbackAudit from "@pc/core/CallbackAudit"
import { type ChildProcess, spawn } from "node:child_process"
import { createPublicKey, verify as rsaVerify } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { execFile } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Flaw, type FlawedEndpoint, startFlawedEndpoint, startHostile, listenEvents } from "@pc/test-support"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { type Mock as RunningMock, startMock } from "@pc/test-support/mock"
import { dev } from "./support/mock.js"

let mock: RunningMock
let fastMock: RunningMock
const closing: Array<{ close: () => Promise<void> }> = []

beforeAll(async () => {
  mock = await startMock({ environment: "production", callbackBackoffMs: 600_000 })
  // A 1 s callback timeout, so the endpoint slower than it is judged in seconds, not a minute.
  fastMock = await startMock({ environment: "production", callbackBackoffMs: 600_000, callbackTimeoutMs: 1000 })
}, 60_000)

afterAll(async () => {
  for (const c of closing) await c.close()
  await mock.close()
  await fastMock.close()
})

const auditOf = async (on: RunningMock, url: string, extra: Record<string, unknown> = {}) => {
  const answer = await dev<CallbackAudit.AuditReport>(on.url, "POST", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/audit`, {
    url,
    ...extra
  })
  expect(answer.json.code, JSON.stringify(answer.json)).toBe("SUCCESS")
  return answer.json.data!
}

const endpoint = async (flaw: Flaw, on: RunningMock = mock) => {
  const started = await startFlawedEndpoint(on.url, TEST_MERCHANT_APP_KEY, flaw)
  closing.push(started)
  return started
}

const failed = (report: CallbackAudit.AuditReport) => report.checks.filter((c) => c.verdict === "fail").map((c) => c.id)
const verdictOf = (report: CallbackAudit.AuditReport, id: string) => report.checks.find((c) => c.id === id)?.verdict

describe("the callback endpoint audit", () => {
  it("passes a correct Node endpoint with no fail, within a few seconds, recording no delivery", async () => {
    const correct = await endpoint("none")
    const before = await dev<{ notifyUrl: string | null }>(mock.url, "GET", `/dev/merchants/${TEST_MERCHANT_APP_KEY}`)
    const events = await listenEvents(mock.url)
    const started = performance.now()
    const report = await auditOf(mock, correct.url)
    const ms = performance.now() - started
    console.info(`audit of a correct Node endpoint: ${Math.round(ms)} ms`)
    expect(failed(report)).toEqual([])
    expect(report.checks.filter((c) => c.verdict === "warn")).toEqual([])
    expect(report.passed).toBe(true)
    expect(report.environment).toBe("production")
    expect(ms).toBeLessThan(10_000)
    // retry, concurrent duplicates and the replay did not make it act again: 2 + 3 new events.
    expect(correct.acted()).toBeGreaterThan(0)
    await events.next((e) => e.type === "audit.check" && (e.check as { id: string }).id === "latency")
    expect(events.events.filter((e) => e.type === "audit.check")).toHaveLength(report.checks.length)
    events.close()
    const deliveries = await dev<Array<unknown>>(mock.url, "GET", `/dev/callbacks?orderSn=${report.orderSn}`)
    expect(deliveries.json.data).toEqual([])
    const order = await dev<{ status: string }>(mock.url, "GET", `/dev/orders/${report.orderSn}`)
    expect(order.json.data!.status).toBe("PAID")
    // Again, with the process's wrong key made: the audit's own time against a correct endpoint.
    const again = performance.now()
    expect(failed(await auditOf(mock, correct.url))).toEqual([])
    console.info(`second audit of a correct Node endpoint: ${Math.round(performance.now() - again)} ms`)
    const after = await dev<{ notifyUrl: string | null }>(mock.url, "GET", `/dev/merchants/${TEST_MERCHANT_APP_KEY}`)
    expect(after.json.data!.notifyUrl).toBe(before.json.data!.notifyUrl)
  })

  it("signs every valid callback with a signature holding both + and /", async () => {
    const seen: Array<{ ts: string; signature: string; version: string; body: string }> = []
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (c: Buffer) => chunks.push(c))
      request.on("end", () => {
        seen.push({
          ts: String(request.headers["x-r-ts"]),
          signature: String(request.headers["x-r-signature"]),
          version: String(request.headers["x-r-key-version"]),
          body: Buffer.concat(chunks).toString("utf8")
        })
        response.writeHead(200).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    closing.push({ close: () => new Promise((resolve) => server.close(() => resolve())) })
    await auditOf(mock, `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`)
    const keys = await dev<Array<{ version: number; publicKeyPem: string }>>(mock.url, "GET", "/dev/platform-keys")
    const key = createPublicKey(keys.json.data!.find((k) => k.version === Number(seen[0]!.version))!.publicKeyPem)
    const valid = seen.filter((r) =>
      rsaVerify(
        "sha256",
        Buffer.from(`${TEST_MERCHANT_APP_KEY}.${r.ts}.${r.body}`),
        key,
        Buffer.from(r.signature, "base64")
      )
    )
    // valid, escaped body, unknown fields, retry, 5 duplicates, and the replay at least.
    expect(valid.length).toBeGreaterThanOrEqual(10)
    for (const request of valid) {
      expect(request.signature).toContain("+")
      expect(request.signature).toContain("/")
    }
  })

  // Each flaw and every check it must fail. Four checks (timestamp-mismatch, wrong-key, other-app-key,
  // missing-timestamp) can only be passed by an endpoint that does not verify the signature over what
  // it received, so the endpoint without verification is the flaw that plants them.
  const flaws: ReadonlyArray<readonly [Flaw, ReadonlyArray<string>]> = [
    [
      "no-verification",
      [
        "tampered-body",
        "whitespace-body",
        "timestamp-mismatch",
        "wrong-key",
        "other-app-key",
        "missing-signature",
        "missing-timestamp",
        "missing-key-version",
        "malformed-signature"
      ]
    ],
    ["reserialised-body", ["valid-escaped-body", "whitespace-body"]],
    ["no-window", ["stale-timestamp", "future-timestamp"]],
    ["past-only-window", ["future-timestamp"]],
    ["key-without-version", ["unknown-key-version"]],
    ["plus-as-space", ["valid"]],
    ["strict-schema", ["unknown-fields"]],
    ["check-then-insert", ["concurrent-duplicates"]],
    ["optional-signature", ["missing-signature"]],
    ["url-decoded-signature", ["malformed-signature"]],
    ["version-defaults-to-current", ["missing-key-version"]]
  ]
  it.concurrent.each(flaws)("fails a Node endpoint with the flaw %s on %j", async (flaw, checks) => {
    const flawed = await endpoint(flaw)
    const report = await auditOf(mock, flawed.url)
    expect(report.passed).toBe(false)
    for (const check of checks) {
      expect(failed(report)).toContain(check)
      expect(report.checks.find((c) => c.id === check)!.detail.length).toBeGreaterThan(40)
    }
  })

  it("fails an endpoint slower than the callback timeout on latency", async () => {
    const slow = await endpoint("slow", fastMock)
    const report = await auditOf(fastMock, slow.url)
    expect(failed(report)).toContain("latency")
    expect(report.checks.find((c) => c.id === "latency")!.detail).toContain("callback timeout")
  }, 30_000)

  it("warns, without failing, an endpoint that rejects forgeries with a 5xx", async () => {
    const report = await auditOf(mock, (await endpoint("forgery-500")).url)
    expect(failed(report)).toEqual([])
    expect(verdictOf(report, "tampered-body")).toBe("warn")
    expect(report.checks.find((c) => c.id === "wrong-key")!.detail).toContain("5xx")
  })

  it("the README's audit example runs as written and prints each check and the outcome", async () => {
    const packageDir = fileURLToPath(new URL("..", import.meta.url))
    const readme = readFileSync(`${packageDir}README.md`, "utf8")
    const code = /<!-- audit-example: mock -->\s*```js\n([\s\S]*?)```/.exec(readme)![1]!
    // In the package folder, so that "@pc/mock-server" resolves through its real exports (dist).
    const file = `${packageDir}.readme-audit-${process.pid}.mjs`
    writeFileSync(file, code)
    // An endpoint that accepts everything: the example's mock has platform keys of its own.
    const lax = await endpoint("no-verification")
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [file], {
        cwd: packageDir,
        timeout: 60_000,
        env: { ...process.env, CALLBACK_URL: lax.url }
      })
      const lines = stdout.trim().split("\n")
      expect(lines).toHaveLength(20)
      expect(lines[0]).toMatch(/^pass valid 200 \d+ ms accepted/)
      expect(lines.find((l) => l.includes(" tampered-body "))).toMatch(/^fail tampered-body 200/)
      expect(lines.at(-1)).toBe("failed")
    } finally {
      rmSync(file, { force: true })
    }
  }, 90_000)

  it("refuses a cross-site request from a web page (another Origin), like every changing /dev/ route", async () => {
    const answer = await fetch(`${mock.url}/dev/merchants/${TEST_MERCHANT_APP_KEY}/audit`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://attacker.example" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/cb" })
    })
    expect(answer.status, await answer.clone().text()).toBe(401)
    expect(((await answer.json()) as { code: string }).code).toBe("unauthorized")
  })

  it("refuses to audit the mock itself (the notify-URL rule)", async () => {
    const answer = await dev(mock.url, "POST", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/audit`, {
      url: `${mock.url.replace("127.0.0.1", "localhost")}/dev/platform-keys/rotate`
    })
    expect(answer.status).toBe(400)
    expect(answer.json.code).toBe("paramError")
  })
})

describe("the audit against Python endpoints", () => {
  const script = fileURLToPath(new URL("./support/audit_endpoint.py", import.meta.url))
  const python = async (flaw: string) => {
    const child: ChildProcess = spawn("python3", [script, mock.url, TEST_MERCHANT_APP_KEY, flaw], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    closing.push({ close: async () => void child.kill() })
    const port = await new Promise<string>((resolve) =>
      child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim()))
    )
    return `http://127.0.0.1:${port}/callbacks`
  }
  it.concurrent.each([
    ["none", undefined],
    ["reserialised-body", "valid-escaped-body"],
    ["plus-as-space", "valid"],
    ["no-window", "stale-timestamp"]
  ] as const)("Python endpoint %s: fails %s", async (flaw, check) => {
    const report = await auditOf(mock, await python(flaw))
    if (check === undefined) expect(failed(report)).toEqual([])
    else expect(failed(report)).toContain(check)
  })
})

describe("hostile endpoints end the audit within 60 s", () => {
  const hostile = async (kind: "hang" | "drip" | "huge" | "redirect") => {
    const started = await startHostile(kind, `${mock.url}/dev/platform-keys/rotate`)
    closing.push(started as FlawedEndpoint)
    return started.url
  }
  it.concurrent.each([
    ["hang", /no answer/],
    ["drip", /no answer/],
    ["huge", /HTTP 200/],
    ["redirect", /redirect to .*never followed/]
  ] as const)(
    "%s",
    async (kind, says) => {
      const keysBefore = await dev<Array<unknown>>(mock.url, "GET", "/dev/platform-keys")
      const started = performance.now()
      const report = await auditOf(mock, await hostile(kind))
      const ms = performance.now() - started
      console.info(`audit of the ${kind} endpoint: ${Math.round(ms)} ms`)
      expect(ms).toBeLessThan(60_000)
      expect(report.passed).toBe(false)
      expect(report.checks.map((c) => c.detail).join(" ")).toMatch(says)
      const keysAfter = await dev<Array<unknown>>(mock.url, "GET", "/dev/platform-keys")
      expect(keysAfter.json.data).toHaveLength(keysBefore.json.data!.length)
    },
    70_000
  )
})
