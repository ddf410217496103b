// `pnpm --filter @pc/bench replicas`: one, two and three mock replicas (production, the built `pc
// mock`) on one throwaway PostgreSQL, loaded the way `pnpm bench` loads one mock: signed creates
// from wrk in its own process with the pre-signed Lua script, one wrk per replica at the same time
// (wrk aims one process at one address; their sums are the totals, 32 connections in all), and
// callbacks per second (N paid orders waiting, the notify URL set, until a loopback receiver holds
// all N). Beside each figure, the CPU each replica and PostgreSQL spent per request, and how busy
// the whole machine was: on a small machine that is what decides how replicas scale.
// Not part of `pnpm bench` (its 6-minute budget). `--smoke` runs one short round of each.
import { startPostgres } from "@pc/servers"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { machineFacts, sampleLoad } from "./Machine.js"
import { signOrders } from "./Orders.js"
import { CREATE_ORDER_PATH, type Running, startMock, TEST_MERCHANT_APP_KEY } from "./Servers.js"
import { median, round } from "./Stats.js"
import { ensureWrk, type LoadResult, runLoad, writeScript } from "./Wrk.js"

const { values: flags } = parseArgs({
  options: { smoke: { type: "boolean", default: false }, out: { type: "string" } }
})
const smoke = flags.smoke === true
const size = smoke
  ? { pool: 200, rounds: 1, seconds: 1, callbacks: 30, connections: 8 }
  : { pool: 3_000, rounds: 3, seconds: 5, callbacks: 600, connections: 32 }
const REPLICA_COUNTS = [1, 2, 3] as const

/** CPU seconds (user + system) of a process from /proc; `children` adds its waited-for children's. */
const cpuOf = (pid: number, children = false): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const own = Number(fields[11]) + Number(fields[12])
    return (children ? own + Number(fields[13]) + Number(fields[14]) : own) / 100
  } catch {
    return 0
  }
}

/** PostgreSQL's CPU seconds so far: the postmaster, the backends it has now, and those that ended. */
const postgresCpu = (dataDir: string): number => {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
  let total = cpuOf(postmaster, true)
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      if (parent === postmaster) total += cpuOf(Number(entry))
    } catch {
      // Gone meanwhile: its time is in the postmaster's children's total.
    }
  }
  return total
}

/** The whole machine's busy and total CPU seconds so far, from /proc/stat. */
const machineCpu = () => {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/)
  const values = ticks.map(Number)
  const idle = values[3]! + values[4]!
  const total = values.reduce((a, b) => a + b, 0)
  return { busy: (total - idle) / 100, total: total / 100 }
}

/** CPU spent by the replicas, PostgreSQL and the machine while `work` runs. */
const measured = async <A>(mocks: ReadonlyArray<Running>, dataDir: string, work: () => Promise<A>) => {
  const replicasBefore = mocks.map((mock) => mock.cpuSeconds())
  const postgresBefore = postgresCpu(dataDir)
  const machineBefore = machineCpu()
  const started = performance.now()
  const result = await work()
  const seconds = (performance.now() - started) / 1000
  const machineAfter = machineCpu()
  return {
    result,
    seconds,
    replicaCpu: mocks.map((mock, i) => mock.cpuSeconds() - replicasBefore[i]!),
    postgresCpu: postgresCpu(dataDir) - postgresBefore,
    // Busy share of all cores: 1 means every core was busy the whole time.
    machineBusy: (machineAfter.busy - machineBefore.busy) / Math.max(1e-9, machineAfter.total - machineBefore.total)
  }
}

/** A loopback receiver answering 200, counting distinct callback events. */
const startReceiver = async () => {
  const events = new Set<string>()
  let wake = () => {}
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString()
      events.add((JSON.parse(body) as { eventId: string }).eventId)
      response.end("OK")
      wake()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/callback`,
    /** Resolves once `count` distinct events arrived; fails after `timeoutMs`. */
    waitFor: (count: number, timeoutMs: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${events.size} of ${count} callbacks arrived`)), timeoutMs)
        wake = () => {
          if (events.size >= count) {
            clearTimeout(timer)
            resolve()
          }
        }
        wake()
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const json = async <A>(url: string, init?: RequestInit): Promise<A> => {
  const response = await fetch(url, init)
  const body = (await response.json()) as { code: string; data: A }
  if (body.code !== "SUCCESS") throw new Error(`${init?.method ?? "GET"} ${url}: ${JSON.stringify(body)}`)
  return body.data
}

/** Runs `task` for each item, `concurrency` at a time. */
const inParallel = async <T>(
  items: ReadonlyArray<T>,
  concurrency: number,
  task: (item: T, i: number) => Promise<void>
) => {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++
        await task(items[i]!, i)
      }
    })
  )
}

/** Connections per replica so that they add up to `total`. */
const split = (total: number, n: number) =>
  Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0))

const work = mkdtempSync(join(tmpdir(), "pc-bench-replicas-"))
const load = sampleLoad()
const postgres = await startPostgres()
const dataDir = join(postgres.dir, "data")
const figures: Array<Record<string, unknown>> = []
const rows: Array<string> = []
try {
  ensureWrk()
  // One pool per wrk (they run at the same time): distinct orders, signed before any clock starts.
  console.error(`replicas: signing ${REPLICA_COUNTS.at(-1)! * size.pool} orders...`)
  const scripts = Array.from({ length: REPLICA_COUNTS.at(-1)! }, (_, i) =>
    writeScript(work, signOrders(size.pool, `replicas-${Date.now()}-${i}`))
  )
  for (const n of REPLICA_COUNTS) {
    const db = await postgres.createDatabase(`replicas_${n}`)
    console.error(`replicas: ${n} on one PostgreSQL...`)
    const mocks = await Promise.all(
      Array.from({ length: n }, () => startMock(db, { extra: ["--callback-backoff-ms", "600000"] }))
    )
    try {
      const connections = split(size.connections, n)
      const loadAll = (seconds: number) =>
        Promise.all(mocks.map((mock, i) => runLoad(mock, scripts[i]!, { connections: connections[i]!, seconds })))
      await loadAll(1)
      const rounds: Array<Awaited<ReturnType<typeof measured<ReadonlyArray<LoadResult>>>>> = []
      for (let r = 0; r < size.rounds; r++) rounds.push(await measured(mocks, dataDir, () => loadAll(size.seconds)))
      const creates = rounds.map((round) => {
        const requests = round.result.reduce((sum, run) => sum + run.requests, 0)
        return {
          perSecond: round.result.reduce((sum, run) => sum + run.requestsPerSecond, 0),
          replicaCpuMs: (round.replicaCpu.reduce((a, b) => a + b, 0) * 1000) / requests,
          postgresCpuMs: (round.postgresCpu * 1000) / requests,
          machineBusy: round.machineBusy,
          // Cores' worth of CPU the replicas and PostgreSQL got: on a shared machine, their share of it.
          replicaCores: round.replicaCpu.reduce((a, b) => a + b, 0) / round.seconds,
          postgresCores: round.postgresCpu / round.seconds,
          p99Ms: Math.max(...round.result.map((run) => run.p99Ms))
        }
      })

      // Callbacks: orders created and paid while the merchant has no notify URL (each first
      // attempt finds none and waits 10 minutes), then the URL set: every delivery is due at once.
      const sns: Array<string> = []
      const orders = signOrders(size.callbacks, `callbacks-${n}-${Date.now()}`)
      await inParallel(orders, 16, async (order, i) => {
        const created = await json<{ orderSn: string }>(`${mocks[i % n]!.url}${CREATE_ORDER_PATH}`, {
          method: "POST",
          headers: order.headers,
          body: order.body
        })
        sns.push(created.orderSn)
      })
      await inParallel(sns, 16, async (sn, i) => {
        await json(`${mocks[i % n]!.url}/dev/orders/${sn}/pay`, { method: "POST" })
      })
      // Until every delivery's first attempt (without a URL) is recorded: none is then in flight.
      await inParallel(sns, 16, async (sn, i) => {
        for (;;) {
          const [delivery] = await json<Array<{ attemptCount: number }>>(
            `${mocks[i % n]!.url}/dev/callbacks?orderSn=${sn}`
          )
          if (delivery !== undefined && delivery.attemptCount >= 1) return
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      })
      const receiver = await startReceiver()
      const callbacks = await measured(mocks, dataDir, async () => {
        await json(`${mocks[0]!.url}/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ notifyUrl: receiver.url })
        })
        await receiver.waitFor(sns.length, 300_000)
      })
      await receiver.close()

      const figure = {
        replicas: n,
        createsPerSecond: round(median(creates.map((c) => c.perSecond)), 0),
        createRounds: creates.map((c) => round(c.perSecond, 0)),
        createP99Ms: round(median(creates.map((c) => c.p99Ms)), 1),
        cpuMsPerCreate: {
          replicas: round(median(creates.map((c) => c.replicaCpuMs)), 3),
          postgres: round(median(creates.map((c) => c.postgresCpuMs)), 3)
        },
        machineBusyDuringCreates: round(median(creates.map((c) => c.machineBusy)), 2),
        coresDuringCreates: {
          replicas: round(median(creates.map((c) => c.replicaCores)), 2),
          postgres: round(median(creates.map((c) => c.postgresCores)), 2)
        },
        callbacksPerSecond: round(sns.length / callbacks.seconds, 0),
        callbacks: sns.length,
        cpuMsPerCallback: {
          replicas: round((callbacks.replicaCpu.reduce((a, b) => a + b, 0) * 1000) / sns.length, 3),
          postgres: round((callbacks.postgresCpu * 1000) / sns.length, 3)
        },
        machineBusyDuringCallbacks: round(callbacks.machineBusy, 2),
        coresDuringCallbacks: {
          replicas: round(callbacks.replicaCpu.reduce((a, b) => a + b, 0) / callbacks.seconds, 2),
          postgres: round(callbacks.postgresCpu / callbacks.seconds, 2)
        },
        replicaCpuSecondsDuringCallbacks: callbacks.replicaCpu.map((cpu) => round(cpu, 2))
      }
      figures.push(figure)
      rows.push(
        `| ${n} | ${figure.createsPerSecond} | ${figure.cpuMsPerCreate.replicas} + ${figure.cpuMsPerCreate.postgres} | ${figure.coresDuringCreates.replicas} + ${figure.coresDuringCreates.postgres} | ${figure.callbacksPerSecond} | ${figure.cpuMsPerCallback.replicas} + ${figure.cpuMsPerCallback.postgres} | ${figure.coresDuringCallbacks.replicas} + ${figure.coresDuringCallbacks.postgres} |`
      )
      console.log(JSON.stringify(figure))
    } finally {
      await Promise.all(mocks.map((mock) => mock.stop()))
    }
  }
} finally {
  await postgres.stop()
  rmSync(work, { recursive: true, force: true })
}

const result = { machine: machineFacts(), load: load.stop(), mode: smoke ? "smoke" : "full", figures }
console.log()
console.log(
  "| replicas | creates/s | CPU ms per create: replicas + PostgreSQL | cores used: replicas + PostgreSQL | callbacks/s | CPU ms per callback: replicas + PostgreSQL | cores used |"
)
console.log("|---|---|---|---|---|---|---|")
for (const row of rows) console.log(row)
console.log(
  `machine: ${result.machine.cores} cores, ${result.machine.cpu}; load average ${result.load.min}-${result.load.max}`
)
if (flags.out !== undefined) {
  mkdirSync(flags.out, { recursive: true })
  writeFileSync(join(flags.out, "replicas.json"), `${JSON.stringify(result, null, 2)}\n`)
}
