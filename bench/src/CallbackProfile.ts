// `pnpm --filter @pc/bench profile-callbacks [pending] [--trace] [--sql]`: the mock (production, SQLite file)
// delivering a backlog of `pending` callbacks (default 10,000) to a local receiver, as the growth
// suite measures it; after a warm-up, the CPU the mock's process and its main thread spent per
// callback (from /proc: figures the neighbours on a shared machine barely move), and per thread
// (libuv's pool signs; V8's helpers mark and sweep for the GC). `--trace` prints
// them second by second from the start first; with PC_PROFILE_OUT=<file>, V8's CPU profile of the
// measured part is written there (started and stopped by signal, as `profile` does); with
// PC_PROFILE_HEAP_OUT=<file> as well, V8's sampling heap profile of the same part (every allocation,
// the short-lived ones too), and the bytes allocated per callback by function are printed. `--sql`
// times each SQLite statement the mock runs over the same part (servers/SqlTimingOnSignal.mjs) and
// prints, per statement text, its runs, rows and main-thread time per callback.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { preparedDatabase, seedPendingDeliveries, startReceiver } from "./Growth.js"
import { freePort, mockArgs, startServer } from "./Servers.js"
import { printSqlTiming, readSqlTiming, SQL_TIMING_PRELOAD } from "./SqlTiming.js"
import { waitForFile } from "./WrittenFile.js"

/** CPU seconds (user + system) of a process, or of one of its threads, from /proc. */
const cpuSeconds = (stat: string): number => {
  const text = readFileSync(stat, "utf8")
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** CPU seconds of each of a process's threads, summed by thread name (libuv's pool, V8's helpers, ...). */
const threadSeconds = (pid: number): Map<string, number> => {
  const byName = new Map<string, number>()
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = `/proc/${pid}/task/${task}/stat`
      const name =
        task === String(pid) ? "main" : `${readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim()}:${task}`
      byName.set(name, (byName.get(name) ?? 0) + cpuSeconds(stat))
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName
}

/** A node of V8's sampling heap profile: a call frame, the bytes sampled in it, its callees. */
interface HeapNode {
  readonly callFrame: {
    readonly functionName: string
    readonly url: string
    readonly lineNumber: number
    readonly columnNumber: number
  }
  readonly selfSize: number
  readonly children: ReadonlyArray<HeapNode>
}

/** The bytes allocated per callback, by the function that allocated them (the top 25) and in all. */
const printAllocations = (root: HeapNode, callbacks: number) => {
  const bySite = new Map<string, number>()
  let total = 0
  const walk = (node: HeapNode) => {
    const { columnNumber, functionName, lineNumber, url } = node.callFrame
    // With the column: the mock's bundle puts many functions on one line.
    const site = `${functionName || "(anonymous)"} ${url.slice(url.lastIndexOf("/") + 1)}:${lineNumber + 1}:${columnNumber + 1}`
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize)
    total += node.selfSize
    for (const child of node.children) walk(child)
  }
  walk(root)
  console.log(`allocated per callback: ${(total / callbacks / 1024).toFixed(1)} KiB; by function (bytes per callback):`)
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`  ${(bytes / callbacks).toFixed(0).padStart(7)}  ${site}`)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const main = async () => {
  const numbers = process.argv.slice(2).filter((arg) => !arg.startsWith("--"))
  const pending = Number(numbers[0] ?? 10_000)
  if (!Number.isInteger(pending) || pending < 20)
    throw new Error(`pending must be a whole number of 20 or more, not ${numbers[0]}`)
  const out = process.env.PC_PROFILE_OUT
  const profiling = out !== undefined
  const heapOut = profiling ? process.env.PC_PROFILE_HEAP_OUT : undefined
  const sqlTiming = process.argv.includes("--sql")
  /** Whether the mock has a preload that answers SIGUSR2 (without one, the signal would end it). */
  const signalled = profiling || sqlTiming
  const dir = mkdtempSync(join(tmpdir(), "pc-cbprofile-"))
  const receiver = await startReceiver()
  try {
    const db = join(dir, "callbacks.sqlite")
    await preparedDatabase(dir, db)
    const port = await freePort()
    const file = join(dir, "mock.cpuprofile")
    process.env.PC_BENCH_PROFILE = file
    const heapFile = join(dir, "mock.heapprofile")
    if (heapOut !== undefined) process.env.PC_BENCH_HEAP_PROFILE = heapFile
    const preload = new URL("./servers/ProfileOnSignal.mjs", import.meta.url).pathname
    const sqlFile = join(dir, "sql-timing.json")
    if (sqlTiming) process.env.PC_BENCH_SQL_TIMING = sqlFile
    // Seeded due now: the mock starts on them as soon as it is up.
    seedPendingDeliveries(db, pending, receiver.url)
    const mock = await startServer({
      name: "mock",
      nodeArgs: [
        ...(profiling ? ["--import", preload] : []),
        ...(sqlTiming ? ["--import", SQL_TIMING_PRELOAD] : []),
        ...mockArgs({ port, db })
      ],
      port,
      readyPath: "/healthz",
      ready: (status) => status === 200
    })
    try {
      const mainStat = `/proc/${mock.pid}/task/${mock.pid}/stat`
      if (process.argv.includes("--trace")) {
        let [n0, c0, p0] = [receiver.arrivals.size, cpuSeconds(mainStat), mock.cpuSeconds()]
        for (let s = 0; s < 15; s++) {
          await sleep(1000)
          const [n1, c1, p1] = [receiver.arrivals.size, cpuSeconds(mainStat), mock.cpuSeconds()]
          console.log(
            `second ${s}: ${n1 - n0} callbacks, main CPU ${(c1 - c0).toFixed(2)} s, process ${(p1 - p0).toFixed(2)} s, main per callback ${((1000 * (c1 - c0)) / Math.max(1, n1 - n0)).toFixed(2)} ms, load ${loadavg()[0]!.toFixed(2)}`
          )
          ;[n0, c0, p0] = [n1, c1, p1]
        }
      }
      const warm = Math.min(1_000, Math.floor(pending / 5))
      const warmSince = performance.now()
      while (receiver.arrivals.size < warm) {
        if (performance.now() - warmSince > 60_000)
          throw new Error(`only ${receiver.arrivals.size} of ${warm} callbacks arrived in the warm-up's 60 s`)
        await sleep(5)
      }
      const load0 = loadavg()[0]!
      const threads0 = threadSeconds(mock.pid)
      const [count0, all0, main0, t0] = [
        receiver.arrivals.size,
        mock.cpuSeconds(),
        cpuSeconds(mainStat),
        performance.now()
      ]
      if (signalled) process.kill(mock.pid, "SIGUSR2")
      const stopAt = pending - Math.floor(pending / 20)
      while (receiver.arrivals.size < stopAt && performance.now() - t0 < 60_000) await sleep(5)
      const [count1, all1, main1, t1] = [
        receiver.arrivals.size,
        mock.cpuSeconds(),
        cpuSeconds(mainStat),
        performance.now()
      ]
      const load1 = loadavg()[0]!
      const threads1 = threadSeconds(mock.pid)
      if (signalled) process.kill(mock.pid, "SIGUSR2")
      const n = count1 - count0
      if (n === 0)
        throw new Error(`no callbacks left to measure after the warm-up (and trace): ask for more than ${pending}`)
      console.log(
        `${n} callbacks in ${((t1 - t0) / 1000).toFixed(2)} s: ${(n / ((t1 - t0) / 1000)).toFixed(1)}/s; ` +
          `CPU per callback: process ${((1000 * (all1 - all0)) / n).toFixed(3)} ms, main thread ${((1000 * (main1 - main0)) / n).toFixed(3)} ms; ` +
          `load ${load0.toFixed(2)} -> ${load1.toFixed(2)}`
      )
      const perThread = [...threads1]
        .map(([name, seconds]) => [name, (1000 * (seconds - (threads0.get(name) ?? 0))) / n] as const)
        .sort((a, b) => b[1] - a[1])
      console.log(
        `CPU per callback by thread (ms): ${perThread.map(([name, ms]) => `${name} ${ms.toFixed(3)}`).join(", ")}`
      )
      const times = [...receiver.arrivals.values()].sort((a, b) => a - b)
      const buckets: Array<number> = []
      for (const t of times) {
        const b = Math.floor((t - times[0]!) / 1000)
        buckets[b] = (buckets[b] ?? 0) + 1
      }
      console.log(`per second from the first arrival: ${[...buckets].map((n) => n ?? 0).join(" ")}`)
      if (sqlTiming) printSqlTiming(await readSqlTiming(sqlFile), n, "callback", main1 - main0)
      if (profiling) {
        await waitForFile(file, "CPU profile")
        copyFileSync(file, out!)
        console.log(`CPU profile of the measured part: ${out} (Chrome DevTools, Performance tab)`)
        if (heapOut !== undefined) {
          await waitForFile(heapFile, "heap profile")
          copyFileSync(heapFile, heapOut)
          console.log(`heap profile of the measured part: ${heapOut} (Chrome DevTools, Memory tab)`)
          printAllocations((JSON.parse(readFileSync(heapFile, "utf8")) as { readonly head: HeapNode }).head, n)
        }
      }
    } finally {
      await mock.stop()
    }
  } finally {
    await receiver.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
