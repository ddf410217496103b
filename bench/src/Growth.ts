// How the mock holds up as its database fills: create latency with many orders stored against an
// empty database (seeded directly into the SQLite file the mock made), callbacks per second with
// many deliveries pending, and pay-to-callback latency when idle, all to a real local receiver.
import Database from "better-sqlite3"
import { execFile } from "node:child_process"
import { createPrivateKey, sign } from "node:crypto"
import { copyFileSync, existsSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { join } from "node:path"
import { type BareRound, bareFirst, type CallbackRound, callbackRatios } from "./CallbackRounds.js"
import { signCreate } from "./Orders.js"
import { atLeast, atMost, type SuiteResult } from "./Results.js"
import { CREATE_ORDER_PATH, type Running, startMock, TEST_MERCHANT_APP_KEY, testMerchantKeyFile } from "./Servers.js"
import { median, quantile, round } from "./Stats.js"
import { runLoad } from "./Wrk.js"

/**
 * A copy of a database file the mock itself made (schema, platform key, test merchant) and closed:
 * made once per run, since every spawn of the mock costs seconds on a loaded machine.
 */
export const preparedDatabase = async (dir: string, file: string): Promise<void> => {
  const template = join(dir, "template.sqlite")
  if (!existsSync(template)) {
    const mock = await startMock(template)
    await mock.stop()
    // A clean stop checkpoints the WAL into the file; a leftover WAL would mean it did not.
    if (existsSync(`${template}-wal`)) throw new Error("the mock left a WAL behind after a clean stop")
  }
  copyFileSync(template, file)
}

const iso = (ms: number) => new Date(ms).toISOString()

/** The statement that adds one order of the test merchant to the mock's `orders` table. */
export const insertOrder = (db: Database.Database) => {
  const insert = db.prepare(`INSERT INTO orders
    (order_sn, app_key, outer_order, amount, currency, status, created_at, updated_at, expires_at_ms)
    VALUES (?, ?, ?, '10.00', 'USD', ?, ?, ?, ?)`)
  return (orderSn: string, outerOrder: string, status: string, atMs: number) => {
    const at = iso(atMs)
    insert.run(orderSn, TEST_MERCHANT_APP_KEY, outerOrder, status, at, at, atMs)
  }
}

/**
 * Adds `count` final (PAID) orders of the test merchant, months old, in one statement: SQLite makes
 * the rows itself (a JavaScript call per row took most of a minute for 1,000,000 on a loaded machine).
 */
const seedOrders = (file: string, count: number, prefix: string, status = "PAID"): void => {
  const db = new Database(file)
  try {
    const old = Date.now() - 90 * 24 * 3600 * 1000
    const at = "strftime('%Y-%m-%dT%H:%M:%fZ', (@old + i) / 1000.0, 'unixepoch')"
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @count)
      INSERT INTO orders
        (order_sn, app_key, outer_order, amount, currency, status, created_at, updated_at, expires_at_ms)
      SELECT printf('PCSEED%s%010d', @prefix, i), @appKey, @prefix || '-' || i, '10.00', 'USD', @status,
        ${at}, ${at}, @old + i
      FROM n`
    ).run({ count, prefix, appKey: TEST_MERCHANT_APP_KEY, status, old })
  } finally {
    db.close()
  }
}

/** Adds `count` paid orders with a pending delivery each, due now, and points the test merchant at `notifyUrl`. */
export const seedPendingDeliveries = (file: string, count: number, notifyUrl: string): void => {
  seedOrders(file, count, "cb")
  const db = new Database(file)
  try {
    const insert = db.prepare(`INSERT INTO deliveries
      (id, order_sn, app_key, event_id, event_type, body, status, attempt_count, next_attempt_at_ms, created_at, created_at_ms)
      VALUES (?, ?, ?, ?, 'order.paid', ?, 'pending', 0, ?, ?, ?)`)
    const now = Date.now()
    db.transaction(() => {
      db.prepare("UPDATE merchants SET notify_url = ? WHERE app_key = ?").run(notifyUrl, TEST_MERCHANT_APP_KEY)
      for (let i = 0; i < count; i++) {
        const orderSn = `PCSEEDcb${String(i).padStart(10, "0")}`
        const eventId = `evt_seed_${i}`
        const body = JSON.stringify({
          eventId,
          eventType: "order.paid",
          orderSn,
          outerOrder: `cb-${i}`,
          amount: "10.00",
          currency: "USD",
          status: "PAID",
          createdAt: iso(now),
          updatedAt: iso(now)
        })
        insert.run(`dlv_seed_${i}`, orderSn, TEST_MERCHANT_APP_KEY, eventId, body, now, iso(now), now)
      }
    })()
  } finally {
    db.close()
  }
}

/** A local receiver that answers 200 at once and notes when each orderSn's callback arrived. */
export const startReceiver = async () => {
  const arrivals = new Map<string, number>()
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      try {
        arrivals.set((JSON.parse(Buffer.concat(chunks).toString()) as { orderSn: string }).orderSn, performance.now())
      } catch {
        // Not a callback; the count simply does not move.
      }
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The dispatcher's limit of attempts in flight for one merchant whose endpoint answers fast, as the
 * bench's local receiver does (`MAX_IN_FLIGHT_PER_MERCHANT` in
 * apps/mock-server/src/callbacks/EndpointSpeeds.ts, an internal constant; the smoke test holds the two equal).
 */
export const MOCK_IN_FLIGHT_PER_MERCHANT = 64

/**
 * Callbacks per second of the bare deliverer (servers/BareDeliverer.mjs: sign on the thread pool,
 * POST, nothing stored) to a receiver like the mock's, with the mock's in-flight limit: the most
 * that limit lets any deliverer send one merchant, in its own process as the mock is.
 */
const bareDeliveryRate = async (seconds: number): Promise<number> => {
  const receiver = await startReceiver()
  try {
    const script = new URL("./servers/BareDeliverer.mjs", import.meta.url).pathname
    const args = [receiver.url, testMerchantKeyFile("private"), TEST_MERCHANT_APP_KEY]
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [script, ...args, String(MOCK_IN_FLIGHT_PER_MERCHANT), String(seconds)],
        { timeout: (seconds + 30) * 1000 },
        (error, out) => (error === null ? resolve(out) : reject(error))
      )
    )
    const rate = Number(stdout.trim())
    if (!(rate > 0)) throw new Error(`the bare deliverer printed ${JSON.stringify(stdout)}`)
    return rate
  } finally {
    await receiver.close()
  }
}

export interface GrowthOptions {
  readonly dir: string
  readonly script: string
  readonly seededOrders: number
  readonly rounds: number
  readonly seconds: number
  readonly pendingDeliveries: number
  /** Callbacks/s is measured over at most this long (or until every pending one arrived). */
  readonly callbackWindowSeconds: number
  /** How long the bare deliverer is measured, after one second not counted. */
  readonly bareDeliverySeconds: number
  readonly latencyOrders: number
}

/** Create latency (1 connection, p50) with `seededOrders` stored against an empty database. */
const createLatency = async (options: GrowthOptions) => {
  const empty = join(options.dir, "growth-empty.sqlite")
  const seeded = join(options.dir, "growth-seeded.sqlite")
  await preparedDatabase(options.dir, empty)
  await preparedDatabase(options.dir, seeded)
  const seedStart = performance.now()
  seedOrders(seeded, options.seededOrders, "seed")
  const seedSeconds = (performance.now() - seedStart) / 1000
  const servers: Array<Running> = []
  try {
    const emptyMock = await startMock(empty)
    servers.push(emptyMock)
    const seededMock = await startMock(seeded)
    servers.push(seededMock)
    for (const mock of servers) await runLoad(mock, options.script, { connections: 1, seconds: 1 })
    const ratios: Array<number> = []
    const emptyP50: Array<number> = []
    const seededP50: Array<number> = []
    for (let round = 0; round < options.rounds; round++) {
      const e = await runLoad(emptyMock, options.script, { connections: 1, seconds: options.seconds })
      const s = await runLoad(seededMock, options.script, { connections: 1, seconds: options.seconds })
      emptyP50.push(e.p50Ms)
      seededP50.push(s.p50Ms)
      ratios.push(s.p50Ms / e.p50Ms)
    }
    return {
      ratio: median(ratios),
      figures: {
        seededOrders: options.seededOrders,
        seedSeconds: round(seedSeconds, 1),
        emptyP50Ms: emptyP50.map((v) => round(v, 3)),
        seededP50Ms: seededP50.map((v) => round(v, 3))
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

/** Raw node:crypto signatures per second over a callback-sized message: the work floor of a callback. */
const rawSignRate = (seconds: number): number => {
  const key = createPrivateKey(readFileSync(testMerchantKeyFile("private"), "utf8"))
  const message = Buffer.from(`${TEST_MERCHANT_APP_KEY}.${Date.now()}.${"x".repeat(230)}`)
  const start = performance.now()
  let count = 0
  while (performance.now() - start < seconds * 1000) {
    sign("sha256", message, key)
    count++
  }
  return count / ((performance.now() - start) / 1000)
}

/**
 * Callbacks delivered before the rate is measured: the first ones are the mock's start, not the
 * rate it sends a backlog at. Main-thread CPU per callback falls from 2.3 to 1.1 ms over the first
 * eight or so seconds, and the rate climbs from about 300/s to 500-600/s, as V8 compiles the
 * dispatcher's path on two cores the signatures keep busy (bench/src/CallbackProfile.ts). The climb
 * is the same with 14,000 or 30,000 pending, so it is the process warming up, not the backlog
 * shrinking. These are seeded on top of the backlog, so the measured window starts with
 * `pendingDeliveries` still pending when the warm-up ends in time (`pendingAtStart` in the figures
 * says how many). The rate from the first callback stays in the figures too
 * (`fromStartPerSecond`). The creates' throughput is measured after a warm-up the same way.
 */
const CALLBACK_WARM_UP = 4_000

/** What {@link callbacksPerSecond} measured. */
export interface CallbackRate {
  readonly perSecond: number
  readonly fromStartPerSecond: number
  readonly skipped: number
  readonly pendingAtStart: number
  readonly delivered: number
}

/**
 * Callbacks delivered per second by the mock on `db` with `pendingDeliveries` still due after a
 * warm-up, over at most `windowSeconds` or until they all arrived. `seed` fills the database
 * before the mock starts: the given count of paid orders, each with a delivery due now, and the
 * test merchant's notify URL set to the receiver's.
 */
export const callbacksPerSecond = async (options: {
  readonly db: string
  readonly seed: (count: number, notifyUrl: string) => Promise<void>
  readonly pendingDeliveries: number
  readonly windowSeconds: number
}): Promise<CallbackRate> => {
  const receiver = await startReceiver()
  // A smoke run's small backlog warms up on half as many.
  const warmUp = Math.min(CALLBACK_WARM_UP, Math.floor(options.pendingDeliveries / 2))
  const seeded = options.pendingDeliveries + warmUp
  await options.seed(seeded, receiver.url)
  const mock = await startMock(options.db)
  try {
    // The warm-up's own limit: 4,000 take 13 s at the slowest rate seen while warming (300/s), and
    // the time is the throughput suite's top-up's (it runs last, on what is left of the budget).
    const warmDeadline = performance.now() + Math.max(10, warmUp / 200) * 1000
    while (receiver.arrivals.size < warmUp && performance.now() < warmDeadline) await sleep(5)
    // Exactly the warm-up's arrivals, by their own times: this loop may look late (a busy machine,
    // a small backlog), and counting what had arrived by then skipped a smoke run's whole backlog.
    const skipped = Math.min(receiver.arrivals.size, warmUp)
    const deadline = performance.now() + options.windowSeconds * 1000
    while (receiver.arrivals.size < seeded && performance.now() < deadline) await sleep(20)
    const times = [...receiver.arrivals.values()].sort((a, b) => a - b)
    const measured = times.slice(skipped)
    if (measured.length < 2) throw new Error(`only ${measured.length} callbacks arrived after ${skipped}`)
    const rate = (list: ReadonlyArray<number>) => (list.length - 1) / ((list[list.length - 1]! - list[0]!) / 1000)
    return {
      perSecond: rate(measured),
      fromStartPerSecond: rate(times),
      skipped,
      pendingAtStart: seeded - skipped,
      delivered: times.length
    }
  } finally {
    await mock.stop()
    await receiver.close()
  }
}

/** {@link callbacksPerSecond} on a SQLite file the mock made, seeded directly. */
export const sqliteCallbackRate = async (
  dir: string,
  name: string,
  pendingDeliveries: number,
  windowSeconds: number
) => {
  const file = join(dir, name)
  await preparedDatabase(dir, file)
  return callbacksPerSecond({
    db: file,
    seed: async (count, notifyUrl) => seedPendingDeliveries(file, count, notifyUrl),
    pendingDeliveries,
    windowSeconds
  })
}

/** Orders paid before the pay-to-callback latencies are counted. */
const LATENCY_WARM_UP = 5

/** From the answer to a pay move to the receiver holding the signed callback, one order at a time, idle. */
const payToCallback = async (options: GrowthOptions) => {
  const receiver = await startReceiver()
  const mock = await startMock(":memory:")
  try {
    await fetch(`${mock.url}/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ notifyUrl: receiver.url })
    })
    const latencies: Array<number> = []
    // The first few warm the path up (the keep-alive connection to the receiver, V8 compiling the
    // dispatcher's code): idle latency is the steady state, so they are not counted.
    for (let i = 0; i < LATENCY_WARM_UP + options.latencyOrders; i++) {
      const body = JSON.stringify({ orderId: `latency-${i}`, amount: "10.00", currency: "USD" })
      const created = (await (
        await fetch(`${mock.url}${CREATE_ORDER_PATH}`, { method: "POST", headers: signCreate(body), body })
      ).json()) as { data: { orderSn: string } }
      const orderSn = created.data.orderSn
      await (await fetch(`${mock.url}/dev/orders/${orderSn}/pay`, { method: "POST" })).text()
      const paidAt = performance.now()
      while (!receiver.arrivals.has(orderSn) && performance.now() < paidAt + 10_000) await sleep(1)
      const arrived = receiver.arrivals.get(orderSn)
      if (arrived === undefined) throw new Error(`no callback for ${orderSn} within 10 s`)
      if (i >= LATENCY_WARM_UP) latencies.push(Math.max(0, arrived - paidAt))
    }
    return latencies
  } finally {
    await mock.stop()
    await receiver.close()
  }
}

/**
 * The callback rates in `rounds` rounds (CallbackRounds.ts), the mock's run with its rows seeded
 * afresh each round and the bare deliverer's alternating which goes first.
 */
const callbackRounds = async (
  options: GrowthOptions
): Promise<ReadonlyArray<Omit<CallbackRound, "mockPerSecond"> & { readonly mock: CallbackRate }>> => {
  const rounds: Array<Omit<CallbackRound, "mockPerSecond"> & { readonly mock: CallbackRate }> = []
  for (let round = 0; round < options.rounds; round++) {
    const mockRate = () =>
      sqliteCallbackRate(
        options.dir,
        `callbacks-${round}.sqlite`,
        options.pendingDeliveries,
        options.callbackWindowSeconds
      )
    // If the bare deliverer cannot run, its target is missed with the reason, and the suite goes on.
    const bareRate = (): Promise<BareRound> =>
      bareDeliveryRate(options.bareDeliverySeconds).then(
        (perSecond) => ({ perSecond }),
        (error: unknown) => ({ skipped: (error instanceof Error ? error.message : String(error)).split("\n")[0]! })
      )
    const firstBare = bareFirst(round) ? await bareRate() : undefined
    const mock = await mockRate()
    const rawSignaturesPerSecond = rawSignRate(1)
    const bare = firstBare ?? (await bareRate())
    rounds.push({ mock, rawSignaturesPerSecond, bare })
  }
  return rounds
}

export const growthSuite = async (options: GrowthOptions): Promise<SuiteResult> => {
  const latency = await createLatency(options)
  const rounds = await callbackRounds(options)
  const callbacks = rounds[0]!.mock
  const ratios = callbackRatios(rounds.map((r) => ({ ...r, mockPerSecond: r.mock.perSecond })))
  const payLatencies = await payToCallback(options)
  return {
    targets: {
      "create p50 with many orders / empty": atMost(
        latency.ratio,
        1.5,
        "x",
        `p50 create latency (1 connection) with ${options.seededOrders} orders seeded into the SQLite file over an empty one, median of per-round ratios`
      ),
      "callbacks/s with many pending / raw signatures/s": atLeast(
        ratios.overRaw,
        0.5,
        "x",
        `callbacks delivered per second to a local receiver from ${callbacks.pendingAtStart} pending, after the mock's warm-up (the first ${callbacks.skipped} of ${callbacks.pendingAtStart + callbacks.skipped} seeded), over node:crypto signatures per second in one thread (each callback is one signature), median of ${rounds.length} rounds' ratios`
      ),
      "callbacks/s with many pending / bare deliverer's": atLeast(
        ratios.overBare,
        0.8,
        "x",
        ratios.bareSkipped === undefined
          ? `the same callbacks/s over a deliverer that signs on the thread pool and POSTs with the mock's ${MOCK_IN_FLIGHT_PER_MERCHANT} attempts in flight per merchant but stores and records nothing (src/servers/BareDeliverer.mjs), run beside it in each of ${rounds.length} rounds (the two alternate which goes first), median of the rounds' ratios`
          : `the bare deliverer did not run: ${ratios.bareSkipped}`
      ),
      "pay-to-callback p95, idle": atMost(
        quantile(payLatencies, 0.95),
        10,
        "ms",
        `from the pay move's answer to the receiver holding the callback, ${options.latencyOrders} orders one at a time after ${LATENCY_WARM_UP} not counted`
      )
    },
    figures: {
      createLatency: latency.figures,
      callbacks: {
        pending: options.pendingDeliveries,
        pendingAtStart: callbacks.pendingAtStart,
        delivered: callbacks.delivered,
        warmUp: callbacks.skipped,
        perSecond: round(ratios.mockPerSecond, 1),
        rounds: rounds.map((r) => round(r.mock.perSecond, 1)),
        fromStartPerSecond: rounds.map((r) => round(r.mock.fromStartPerSecond, 1)),
        rawSignaturesPerSecond: rounds.map((r) => round(r.rawSignaturesPerSecond, 1)),
        // The ceiling of the mock's design, not of signing: with the mock's attempts in flight per
        // merchant, a deliverer that stores and records nothing sends this many a second.
        bareDeliverer:
          ratios.bareSkipped === undefined
            ? {
                inFlight: MOCK_IN_FLIGHT_PER_MERCHANT,
                perSecond: round(ratios.barePerSecond, 1),
                rounds: rounds.flatMap((r) => ("perSecond" in r.bare ? [round(r.bare.perSecond, 1)] : [])),
                mockOverBare: round(ratios.overBare),
                mockOverBareRounds: ratios.overBareRounds.map((ratio) => round(ratio))
              }
            : { skipped: ratios.bareSkipped }
      },
      payToCallbackMs: {
        median: round(median(payLatencies), 2),
        p95: round(quantile(payLatencies, 0.95), 2),
        max: round(Math.max(...payLatencies), 2)
      }
    }
  }
}
