// `pnpm --filter @pc/bench profile [seconds] [top] [connections] [--sql]`: the mock (production, SQLite file, or
// PostgreSQL with PC_PROFILE_PG=1) under signed
// creates from wrk, profiled by V8's CPU profiler (what `node --cpu-prof` runs, here started and
// stopped by signal so that start-up's module loading stays out), then where its CPU went: by
// function (self time), by package, and the project's functions inclusive, as shares of the
// samples taken while it was not idle. `--sql` also times each SQLite statement the mock runs over
// the profiled part (servers/SqlTimingOnSignal.mjs) and prints its time per create.
import { startPostgres } from "@pc/servers"
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { signNewOrders, signOrders, withBadSignatures } from "./Orders.js"
import { freePort, mockArgs, startServer, TEST_MERCHANT_APP_KEY } from "./Servers.js"
import { printSqlTiming, readSqlTiming, SQL_TIMING_PRELOAD } from "./SqlTiming.js"
import { ensureWrk, runLoad, writeScript } from "./Wrk.js"
import { waitForFile } from "./WrittenFile.js"

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: ReadonlyArray<number>
}
interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
}

/** Where a frame's code lives: a package, the mock's own module, Node's internals, or V8's pseudo-frames. */
const owner = (url: string, name: string): string => {
  if (url === "") return name.startsWith("(") ? name : "(native)"
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(url)
  if (pkg !== null) return pkg[1]!
  if (url.startsWith("node:")) return "node internals"
  const ours = /\/(apps|packages)\/([^/]+)\/src\/(.*)$/.exec(url)
  if (ours !== null) return `${ours[1]}/${ours[2]}/${ours[3]}`
  return url
}

/** A frame's file: the owner and, inside a package, the file's path in it (`effect/dist/esm/internal/fiberRuntime.js`). */
const where = (url: string, who: string): string => {
  const inPackage = /node_modules\/(?:@[^/]+\/)?[^/]+\/(?!.*node_modules)(.*)$/.exec(url)
  return inPackage === null ? who : `${who}/${inPackage[1]}`
}

/** Self-time shares by function and by owner, of the non-idle samples. */
export const summarize = (profile: CpuProfile, top = 25) => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const counts = new Map<number, number>()
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1)
  const functions = new Map<string, number>()
  const owners = new Map<string, number>()
  let busy = 0
  for (const [id, count] of counts) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame
    if (functionName === "(idle)") continue
    busy += count
    const who = owner(url, functionName)
    const fn = `${functionName || "(anonymous)"} ${where(url, who)}:${lineNumber + 1}`
    functions.set(fn, (functions.get(fn) ?? 0) + count)
    owners.set(who, (owners.get(who) ?? 0) + count)
  }
  // Inclusive time of the project's own functions (and of a few library entry points): each
  // sample counts once for every distinct such function on its stack.
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const inclusive = new Map<string, number>()
  for (const [id, count] of counts) {
    if (byId.get(id)!.callFrame.functionName === "(idle)") continue
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url, lineNumber } = byId.get(at)!.callFrame
      const who = owner(url, functionName)
      if (!who.startsWith("apps/") && !who.startsWith("packages/") && !/^(better-sqlite3|@effect\/sql)/.test(who))
        continue
      seen.add(`${functionName || "(anonymous)"} ${who}:${lineNumber + 1}`)
    }
    for (const fn of seen) inclusive.set(fn, (inclusive.get(fn) ?? 0) + count)
  }
  const shares = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, count]) => ({ name, percent: Math.round((1000 * count) / busy) / 10 }))
  // For the heaviest self-time functions, the stacks (a few frames up) that reach them.
  const label = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame
    return `${functionName || "(anonymous)"} ${where(url, owner(url, functionName))}:${lineNumber + 1}`
  }
  const callers = new Map<string, Map<string, number>>()
  for (const [id, count] of counts) {
    const fn = label(id)
    const chain: Array<string> = []
    for (let at = parent.get(id); at !== undefined && chain.length < 4; at = parent.get(at)) chain.push(label(at))
    const byChain = callers.get(fn) ?? new Map<string, number>()
    byChain.set(chain.join(" < "), (byChain.get(chain.join(" < ")) ?? 0) + count)
    callers.set(fn, byChain)
  }
  const stacks = shares(functions)
    .slice(0, 6)
    .map((row) => ({ ...row, from: shares(callers.get(row.name) ?? new Map()).slice(0, 3) }))
  return {
    busySamples: busy,
    byFunction: shares(functions),
    byOwner: shares(owners),
    inclusive: shares(inclusive),
    stacks
  }
}

const main = async () => {
  ensureWrk()
  const seconds = Number(process.argv[2] ?? 15)
  const dir = mkdtempSync(join(tmpdir(), "pc-profile-"))
  // PC_PROFILE_PG=1: the mock on a throwaway PostgreSQL (tooling/servers) instead of a SQLite file.
  const postgres = process.env.PC_PROFILE_PG === "1" ? await startPostgres() : undefined
  try {
    // PC_PROFILE_BAD_EVERY=n: every n-th signature broken (1: all refused), to profile the refusals.
    const orders = signOrders(1_000, `profile-${Date.now()}`)
    const badEvery = Number(process.env.PC_PROFILE_BAD_EVERY ?? 0)
    const script = writeScript(dir, badEvery > 0 ? withBadSignatures(orders, badEvery) : orders)
    const port = await freePort()
    const file = join(dir, "mock.cpuprofile")
    process.env.PC_BENCH_PROFILE = file
    const preload = new URL("./servers/ProfileOnSignal.mjs", import.meta.url).pathname
    const sqlTiming = process.argv.includes("--sql")
    const sqlFile = join(dir, "sql-timing.json")
    if (sqlTiming) process.env.PC_BENCH_SQL_TIMING = sqlFile
    const mock = await startServer({
      name: "mock",
      nodeArgs: [
        "--import",
        preload,
        ...(sqlTiming ? ["--import", SQL_TIMING_PRELOAD] : []),
        ...mockArgs({ port, db: (await postgres?.createDatabase("profile")) ?? join(dir, "profile.sqlite") })
      ],
      port,
      readyPath: "/healthz",
      ready: (status) => status === 200
    })
    const refusedShare = badEvery > 0 ? 1 / badEvery : 0
    // PC_PROFILE_NEW_ORDERS=n: the profiled run creates n new orders, each sent once (the run ends
    // when the last is answered; `seconds` is then only its limit), instead of cycling the pool.
    const newOrders = Number(process.env.PC_PROFILE_NEW_ORDERS ?? 0)
    const fresh =
      newOrders > 0
        ? writeScript(
            dir,
            await signNewOrders(newOrders, `profile-new-${Date.now()}`, [TEST_MERCHANT_APP_KEY]),
            undefined,
            {
              once: true
            }
          )
        : undefined
    await runLoad(mock, script, { connections: 32, seconds: 2, refusedShare })
    process.kill(mock.pid, "SIGUSR2")
    const result = await runLoad(mock, fresh ?? script, {
      connections: Number(process.argv[4] ?? 32),
      seconds: fresh === undefined ? seconds : 60,
      refusedShare,
      untilAllAnswered: fresh !== undefined
    })
    process.kill(mock.pid, "SIGUSR2")
    const sqlTimings = await (async () => {
      try {
        await waitForFile(file, "CPU profile")
        return sqlTiming ? await readSqlTiming(sqlFile) : undefined
      } finally {
        await mock.stop()
      }
    })()
    // PC_PROFILE_OUT keeps the raw profile (Chrome DevTools, speedscope) beside the summary.
    if (process.env.PC_PROFILE_OUT) copyFileSync(file, process.env.PC_PROFILE_OUT)
    const summary = summarize(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, Number(process.argv[3] ?? 25))
    console.log(`${Math.round(result.requestsPerSecond)} creates/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`)
    if (sqlTimings !== undefined) printSqlTiming(sqlTimings, result.requests, "create")
    console.log("\nself time by owner (% of busy samples):")
    for (const row of summary.byOwner) console.log(`${String(row.percent).padStart(6)}%  ${row.name}`)
    console.log("\nself time by function:")
    for (const row of summary.byFunction) console.log(`${String(row.percent).padStart(6)}%  ${row.name}`)
    console.log("\ninclusive time of the project's functions and the SQL driver:")
    for (const row of summary.inclusive) console.log(`${String(row.percent).padStart(6)}%  ${row.name}`)
    console.log("\nwhere the heaviest functions are called from (% of busy samples):")
    for (const row of summary.stacks) {
      console.log(`${String(row.percent).padStart(6)}%  ${row.name}`)
      for (const from of row.from) console.log(`          ${String(from.percent).padStart(5)}%  < ${from.name}`)
    }
  } finally {
    await postgres?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
