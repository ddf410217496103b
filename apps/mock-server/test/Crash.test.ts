// The mock as a real process on a real SQLite file: a SIGKILL in the middle of a retrying delivery
// loses nothing (CONTRACT.md "Callbacks": deliveries are kept in the database before the first
// attempt), and SIGTERM / SIGINT stop it cleanly.
import { Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { Schema } from "effect"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it, vi } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev } from "./support/mock.js"
import { spawnNode } from "./support/process.js"
import { deliveriesOf, fetchPlatformKeys, orderSnOf, platformVerifiers, verifiedEvent } from "./support/receiver.js"
import { type ReceivedRequest, type Receiver, startReceiver, until } from "@pc/test-support"

/**
 * How long a start (compiling the TypeScript entry) may take before it counts as hung: generous,
 * since this file runs beside the package's other suites on a shared machine, where one start took
 * over 15 s. A hang guard, not a speed bound.
 */
const START_TIMEOUT_MS = 60_000
vi.setConfig({ testTimeout: 4 * START_TIMEOUT_MS })

/** The repository root: the mock is started from there, as the README says. */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url))

interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

interface MockProcess {
  readonly child: ChildProcess
  readonly url: string
  readonly output: () => string
  readonly exited: Promise<Exit>
}

const children = new Set<ChildProcess>()
const dirs: Array<string> = []
const receivers: Array<Receiver> = []

afterEach(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  children.clear()
  for (const receiver of receivers.splice(0)) await receiver.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), "pc-mock-crash-"))
  dirs.push(dir)
  return join(dir, "mock.sqlite")
}

/** Runs the mock as its own process (`pc mock`, the built CLI) from the repository root, collecting stdout and stderr. */
const run = (db: string, port: number, extra: ReadonlyArray<string> = []) => {
  const started = spawnNode(
    [
      "apps/cli/dist/bin.js",
      "mock",
      "--env",
      "production",
      "--port",
      String(port),
      "--db",
      db,
      "--callback-backoff-ms",
      "300",
      ...extra
    ],
    ROOT
  )
  children.add(started.child)
  return started
}

/** Starts the mock on a free port (`--port 0`), and resolves with its URL once it says it listens. */
const spawnMock = async (db: string, extra: ReadonlyArray<string> = []): Promise<MockProcess> => {
  const { child, output: read, exited } = run(db, 0, extra)
  let output = ""
  const url = await until(
    () => {
      output = read()
      const match = /Payment Connect mock listening on (http:\/\/[^\s]+)/.exec(output)
      if (match !== null) return match[1]!
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`the mock exited before it was ready:\n${output}`)
      }
      return undefined
    },
    "the mock's ready line",
    { timeoutMs: START_TIMEOUT_MS, intervalMs: 20 }
  )
  return { child, url, output: read, exited }
}

/** Sends a signal and waits (bounded) for the process to end. */
const stop = async (mock: MockProcess, signal: NodeJS.Signals): Promise<Exit> => {
  mock.child.kill(signal)
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the mock did not exit within 8 s of ${signal}:\n${mock.output()}`)),
      8_000
    )
  })
  try {
    return await Promise.race([mock.exited, timeout])
  } finally {
    clearTimeout(timer)
  }
}

const newPaidOrder = async (baseUrl: string) => {
  const orderId = `crash-${process.pid}-${Date.now()}`
  const created = await createOrder(baseUrl, JSON.stringify({ orderId, amount: "7.50", currency: "USD" }))
  expect(created.json.code).toBe("SUCCESS")
  const { orderSn } = Schema.decodeUnknownSync(Wire.CreateOrderResult)(created.json.data)
  const paid = await dev(baseUrl, "POST", `/dev/orders/${orderSn}/pay`)
  expect(paid.json.code).toBe("SUCCESS")
  return { orderId, orderSn }
}

const setNotifyUrl = async (baseUrl: string, notifyUrl: string) => {
  const set = await dev(baseUrl, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl })
  expect(set.json.code).toBe("SUCCESS")
}

describe("the mock as a process", () => {
  it("a delivery that was failing when the process was SIGKILLed is delivered after a restart on the same file", async () => {
    const db = tempDb()
    const receiver = await startReceiver(500)
    receivers.push(receiver)
    const forOrder = (sn: string) => (request: ReceivedRequest) => orderSnOf(request) === sn

    const first = await spawnMock(db)
    expect(first.output()).toContain("environment:          production")
    const keysBefore = await fetchPlatformKeys(first.url)
    expect(keysBefore.map((k) => [k.version, k.status])).toEqual([[1, "current"]])
    await setNotifyUrl(first.url, receiver.url)
    const { orderId, orderSn } = await newPaidOrder(first.url)
    const orderBefore = (await dev<Wire.Order>(first.url, "GET", `/dev/orders/${orderSn}`)).json.data!

    const failing = await until(
      async () => {
        const [delivery] = await deliveriesOf(first.url, orderSn)
        return delivery?.attempts.some((a) => a.httpStatus === 500) ? delivery : undefined
      },
      "a failed attempt",
      { timeoutMs: 10_000, intervalMs: 20 }
    )
    expect(failing.status).toBe("pending")
    expect(failing.attempts[0]).toMatchObject({ attempt: 1, httpStatus: 500, url: receiver.url })

    const killed = await stop(first, "SIGKILL")
    expect(killed).toEqual({ code: null, signal: "SIGKILL" })
    const killedAtMs = Date.now()
    const beforeRestart = receiver.received.filter(forOrder(orderSn)).length
    expect(beforeRestart).toBeGreaterThanOrEqual(1)
    receiver.answer(200)

    const second = await spawnMock(db)
    try {
      // The order, the merchant's notifyUrl and platform key 1 came through the crash.
      const orderAfter = await dev<Wire.Order>(second.url, "GET", `/dev/orders/${orderSn}`)
      expect(orderAfter.json).toEqual({ code: "SUCCESS", msg: null, data: orderBefore })
      expect(orderAfter.json.data).toMatchObject({
        outerOrder: orderId,
        status: "PAID",
        amount: "7.50",
        currency: "USD"
      })
      const merchant = await dev<{ appKey: string; notifyUrl: string | null }>(
        second.url,
        "GET",
        `/dev/merchants/${TEST_MERCHANT_APP_KEY}`
      )
      expect(merchant.json.data).toMatchObject({ appKey: TEST_MERCHANT_APP_KEY, notifyUrl: receiver.url })
      const keysAfter = await fetchPlatformKeys(second.url)
      expect(keysAfter).toEqual(keysBefore)

      // The pending delivery is found again and delivered, signed afresh with the same key 1.
      const requests = await receiver.waitFor(beforeRestart + 1, forOrder(orderSn))
      const redelivered = requests[requests.length - 1]!
      const keys = await platformVerifiers(second.url)
      const before = await verifiedEvent(requests[0]!, TEST_MERCHANT_APP_KEY, keys)
      const after = await verifiedEvent(redelivered, TEST_MERCHANT_APP_KEY, keys)
      expect(after.keyVersion).toBe(1)
      expect(after.event.eventId).toBe(before.event.eventId)
      expect(after.event).toMatchObject({ eventType: "order.paid", orderSn, outerOrder: orderId, status: "PAID" })
      expect(redelivered.body).toBe(requests[0]!.body)
      expect(Number(after.timestamp)).toBeGreaterThan(Number(before.timestamp))
      // Stamped by the second process when it sent it (same machine clock): after the kill, before it arrived.
      expect(Number(after.timestamp)).toBeGreaterThanOrEqual(killedAtMs)
      expect(Number(after.timestamp)).toBeLessThanOrEqual(redelivered.receivedAtMs)
      expect(Headers.get(redelivered.headers, Headers.CallbackHeaders.keyVersion)).toBe("1")

      const delivered = await until(
        async () => {
          const [delivery] = await deliveriesOf(second.url, orderSn)
          return delivery?.status === "delivered" ? delivery : undefined
        },
        "the delivery to be delivered",
        { timeoutMs: 10_000, intervalMs: 20 }
      )
      expect(delivered.id).toBe(failing.id)
      expect(delivered.eventId).toBe(before.event.eventId)
      const statuses = delivered.attempts.map((a) => a.httpStatus)
      expect(statuses[statuses.length - 1]).toBe(200)
      // An attempt is recorded before it is sent (CONTRACT.md): one the kill cut short shows with no
      // HTTP status and says so; every other earlier attempt got the receiver's 500.
      const cut = delivered.attempts.filter((a) => a.httpStatus === null)
      expect(cut.length).toBeLessThanOrEqual(1)
      for (const attempt of cut) expect(attempt.error).toMatch(/^no outcome recorded/)
      expect(statuses.slice(0, -1).every((s) => s === 500 || s === null)).toBe(true)
      expect(statuses.length).toBeGreaterThanOrEqual(2)
      expect(delivered.attemptCount).toBe(statuses.length)
      // One request per recorded attempt, except the one the kill may have cut before it was sent.
      const got = receiver.received.filter(forOrder(orderSn)).length
      expect(got).toBeGreaterThanOrEqual(statuses.length - cut.length)
      expect(got).toBeLessThanOrEqual(statuses.length)
    } finally {
      expect(await stop(second, "SIGTERM")).toEqual({ code: 0, signal: null })
    }
  })

  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s stops the process cleanly with exit code 0, even with a callback in flight",
    async (signal) => {
      const db = tempDb()
      const receiver = await startReceiver("hang")
      receivers.push(receiver)
      // The callback's timeout (10 min) outlasts stop's 8 s guard: exiting at all shows the process
      // did not wait for the hanging attempt to end (no time bound needed here).
      const mock = await spawnMock(db, ["--callback-timeout-ms", "600000"])
      await setNotifyUrl(mock.url, receiver.url)
      const { orderSn } = await newPaidOrder(mock.url)
      await receiver.waitFor(1, (request) => orderSnOf(request) === orderSn)

      const exit = await stop(mock, signal)
      expect(exit).toEqual({ code: 0, signal: null })
      expect(mock.output()).toContain("stopping the mock")
      expect(mock.output()).not.toContain("did not stop cleanly")

      // The file is intact: a new process opens it and finds the order.
      const again = await spawnMock(db)
      const order = await dev<Wire.Order>(again.url, "GET", `/dev/orders/${orderSn}`)
      expect(order.json.data).toMatchObject({ orderSn, status: "PAID" })
      expect(await stop(again, signal)).toEqual({ code: 0, signal: null })
    }
  )

  it("a second mock on the same database file ends at once with exit code 1 and says why; the first keeps serving", async () => {
    const db = tempDb()
    // Behind a proxy: the ready line says where it listens and, apart, the public URL it hands out.
    const first = await spawnMock(db, ["--public-url", "https://proxy.example/pc/"])
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/)
    expect(first.output()).toContain("public URL:           https://proxy.example/pc\n")
    expect(first.output()).toContain("docs:                 https://proxy.example/pc/docs")
    try {
      const started = Date.now()
      const second = run(db, 0)
      let timer: NodeJS.Timeout | undefined
      const exit = await Promise.race([
        second.exited,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`the second mock did not exit:\n${second.output()}`)),
            START_TIMEOUT_MS
          )
        })
      ]).finally(() => clearTimeout(timer))
      expect(exit).toEqual({ code: 1, signal: null })
      expect(second.output()).toContain(
        `the mock failed to start: another mock is using ${db}; stop it or pass another --db`
      )
      expect(second.output()).not.toContain("listening on")
      // Process start-up (tsx) included: no long wait for SQLite's busy timeout.
      // "At once": it does not wait for the lock. Its start alone took over 10 s on a loaded machine,
      // so the bound is the start's hang guard, not a speed target.
      expect(Date.now() - started).toBeLessThan(START_TIMEOUT_MS)

      const { orderSn } = await newPaidOrder(first.url)
      const order = await dev<Wire.Order>(first.url, "GET", `/dev/orders/${orderSn}`)
      expect(order.json.data).toMatchObject({ orderSn, status: "PAID" })
    } finally {
      expect(await stop(first, "SIGTERM")).toEqual({ code: 0, signal: null })
    }
  })

  it("a port already in use ends the process with exit code 1 and says why", async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = taken.address() as AddressInfo
      const mock = run(tempDb(), port)
      let timer: NodeJS.Timeout | undefined
      const exit = await Promise.race([
        mock.exited,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the mock did not exit:\n${mock.output()}`)), START_TIMEOUT_MS)
        })
      ]).finally(() => clearTimeout(timer))
      expect(exit).toEqual({ code: 1, signal: null })
      expect(mock.output()).toContain(`the mock failed to start: cannot listen on 127.0.0.1:${port}`)
      expect(mock.output()).toContain("EADDRINUSE")
      expect(mock.output()).not.toContain("An error has occurred")
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()))
    }
  })
})
