// The mock on PostgreSQL against the same mock on a SQLite file, in one run: new-order creates per
// second of one replica (pools signed before the clock starts, spread over several merchants, each
// order sent once, as the throughput suite's new orders) and callbacks per second with many
// pending (as the growth suite measures them). Beside them, 2 and 3 replicas on the same
// PostgreSQL, as figures: the replicas and PostgreSQL share the machine's cores, so on a small
// machine more replicas cannot create faster than one. PostgreSQL is a throwaway server from
// tooling/servers (Debian's binaries); without them the suite fails, it never passes without
// having measured.
import { postgresBinDir, startPostgres } from "@pc/servers"
import { execFile } from "node:child_process"
import { cpus } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { callbacksPerSecond, sqliteCallbackRate } from "./Growth.js"
import { atLeast, type SuiteResult } from "./Results.js"
import { type Running, startMock, TEST_MERCHANT_APP_KEY } from "./Servers.js"
import { median, round } from "./Stats.js"
import { merchantsOn, newOrderScript, sendNewOrders } from "./Throughput.js"
import type { LoadResult } from "./Wrk.js"

export interface PgOptions {
  readonly dir: string
  /** New orders per measured run on PostgreSQL (one replica), and in all for 2 or 3 replicas. */
  readonly pgNewOrders: number
  /** New orders per measured run on SQLite (faster: the same time needs more). */
  readonly sqliteNewOrders: number
  readonly merchants: number
  readonly rounds: number
  readonly connections: number
  readonly pendingDeliveries: number
  readonly callbackWindowSeconds: number
}

const REPLICA_FIGURES = [2, 3] as const

/** Connections per replica so that they add up to `total`. */
const split = (total: number, n: number) =>
  Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0))

const iso = (ms: number) => new Date(ms).toISOString()

/** A SQL string literal. */
const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`

/**
 * Seeds the PostgreSQL database at `url` (migrated by a mock before) as Growth.ts seeds SQLite:
 * `count` paid orders of the test merchant, each with a delivery due now, and the notify URL. One
 * statement each through psql, PostgreSQL making the rows itself.
 */
const seedPostgres = async (url: string, count: number, notifyUrl: string): Promise<void> => {
  const now = Date.now()
  const old = now - 90 * 24 * 3600 * 1000
  const appKey = quoted(TEST_MERCHANT_APP_KEY)
  const sn = "'PCSEEDcb' || lpad(i::text, 10, '0')"
  const script = `
    BEGIN;
    UPDATE merchants SET notify_url = ${quoted(notifyUrl)} WHERE app_key = ${appKey};
    INSERT INTO orders (order_sn, app_key, outer_order, amount, currency, status, created_at, updated_at, expires_at_ms)
      SELECT ${sn}, ${appKey}, 'cb-' || i, '10.00', 'USD', 'PAID', ${quoted(iso(old))}, ${quoted(iso(old))}, ${old} + i
      FROM generate_series(0, ${count - 1}) i;
    INSERT INTO deliveries (id, order_sn, app_key, event_id, event_type, body, status, attempt_count,
        next_attempt_at_ms, created_at, created_at_ms)
      SELECT 'dlv_seed_' || i, ${sn}, ${appKey}, 'evt_seed_' || i, 'order.paid',
        format('{"eventId":"evt_seed_%s","eventType":"order.paid","orderSn":"%s","outerOrder":"cb-%s","amount":"10.00","currency":"USD","status":"PAID","createdAt":"%s","updatedAt":"%s"}',
          i, ${sn}, i, ${quoted(iso(now))}, ${quoted(iso(now))}),
        'pending', 0, ${now}, ${quoted(iso(now))}, ${now}
      FROM generate_series(0, ${count - 1}) i;
    COMMIT;`
  const psql = join(postgresBinDir()!, "psql")
  await promisify(execFile)(psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", script])
}

/** Creates/s of `mocks` loaded at once, each with its own script and share of the connections. */
const createsAtOnce = async (mocks: ReadonlyArray<Running>, scripts: ReadonlyArray<string>, connections: number) => {
  const shares = split(connections, mocks.length)
  const runs: ReadonlyArray<LoadResult> = await Promise.all(
    mocks.map((mock, i) => sendNewOrders(mock, scripts[i]!, shares[i]!))
  )
  const requests = runs.reduce((sum, run) => sum + run.requests, 0)
  const seconds = Math.max(...runs.map((run) => run.requests / run.requestsPerSecond))
  return { perSecond: requests / seconds, p99Ms: Math.max(...runs.map((run) => run.p99Ms)) }
}

export const pgSuite = async (options: PgOptions): Promise<SuiteResult> => {
  // Throws when Debian's PostgreSQL is not installed: the run then fails with that message.
  const postgres = await startPostgres()
  const mocks: Array<Running> = []
  try {
    const pgDb = await postgres.createDatabase("bench_creates")
    const pgMock = await startMock(pgDb)
    mocks.push(pgMock)
    const sqliteMock = await startMock(join(options.dir, "pg-compare.sqlite"))
    mocks.push(sqliteMock)
    const pgKeys = await merchantsOn(pgMock, options.merchants)
    const sqliteKeys = await merchantsOn(sqliteMock, options.merchants)
    const pools = { pg: [] as Array<string>, sqlite: [] as Array<string>, replicas: [] as Array<Array<string>> }
    const warmPg = await newOrderScript(options.dir, pgKeys, options.pgNewOrders, "pg-warm")
    const warmSqlite = await newOrderScript(options.dir, sqliteKeys, options.sqliteNewOrders, "sqlite-warm")
    for (let r = 0; r < options.rounds; r++) {
      pools.pg.push(await newOrderScript(options.dir, pgKeys, options.pgNewOrders, `pg-r${r}`))
      pools.sqlite.push(await newOrderScript(options.dir, sqliteKeys, options.sqliteNewOrders, `sqlite-r${r}`))
    }
    for (const n of REPLICA_FIGURES) {
      const share = Math.ceil(options.pgNewOrders / n)
      const scripts: Array<string> = []
      for (let i = 0; i < n; i++) scripts.push(await newOrderScript(options.dir, pgKeys, share, `pg-x${n}-${i}`))
      pools.replicas.push(scripts)
    }

    // Warm-up (JIT, pages, the pool's connections), then rounds alternating which goes first.
    await sendNewOrders(pgMock, warmPg, options.connections)
    await sendNewOrders(sqliteMock, warmSqlite, options.connections)
    const pgRuns: Array<LoadResult> = []
    const sqliteRuns: Array<LoadResult> = []
    for (let r = 0; r < options.rounds; r++) {
      const pgRun = async () => void pgRuns.push(await sendNewOrders(pgMock, pools.pg[r]!, options.connections))
      const sqliteRun = async () =>
        void sqliteRuns.push(await sendNewOrders(sqliteMock, pools.sqlite[r]!, options.connections))
      for (const run of r % 2 === 0 ? [pgRun, sqliteRun] : [sqliteRun, pgRun]) await run()
    }
    await sqliteMock.stop()
    const createRatios = pgRuns.map((run, i) => run.requestsPerSecond / sqliteRuns[i]!.requestsPerSecond)

    // 2 and 3 replicas on the same database (the first replica's merchants are everyone's).
    const replicaFigures: Array<{ replicas: number; createsPerSecond: number; p99Ms: number }> = []
    for (const [k, n] of REPLICA_FIGURES.entries()) {
      while (mocks.length - 1 < n) mocks.push(await startMock(pgDb))
      const replicas = [pgMock, ...mocks.slice(2, n + 1)]
      const result = await createsAtOnce(replicas, pools.replicas[k]!, options.connections)
      replicaFigures.push({ replicas: n, createsPerSecond: round(result.perSecond, 0), p99Ms: round(result.p99Ms, 1) })
    }
    await Promise.all(mocks.map((mock) => mock.stop()))
    mocks.length = 0

    // Callbacks with many pending: the same backlog on each engine, one after the other.
    const sqliteCallbacks = await sqliteCallbackRate(
      options.dir,
      "pg-compare-callbacks.sqlite",
      options.pendingDeliveries,
      options.callbackWindowSeconds
    )
    const callbacksDb = await postgres.createDatabase("bench_callbacks")
    // A mock's start migrates the database; the seed needs its tables.
    await (await startMock(callbacksDb)).stop()
    const pgCallbacks = await callbacksPerSecond({
      db: callbacksDb,
      seed: (count, notifyUrl) => seedPostgres(callbacksDb, count, notifyUrl),
      pendingDeliveries: options.pendingDeliveries,
      windowSeconds: options.callbackWindowSeconds
    })

    const cores = cpus().length
    const onePg = median(pgRuns.map((run) => run.requestsPerSecond))
    const replicasLine = `${[onePg, ...replicaFigures.map((f) => f.createsPerSecond)].map((v) => round(v, 0)).join(", ")} creates/s with 1, ${REPLICA_FIGURES.join(" and ")} replicas on the same PostgreSQL (figures, not targets): on this ${cores}-core machine the replicas and PostgreSQL share the same cores, so more replicas cannot gain`
    console.error(`bench: pg: ${replicasLine}`)
    const cpuOf = (runs: ReadonlyArray<LoadResult>) => round(median(runs.map((run) => run.cpuMsPerRequest)), 3)
    return {
      targets: {
        "new-order creates/s, PostgreSQL / SQLite, 1 replica": atLeast(
          median(createRatios),
          0.4,
          "x",
          `new orders created per second by one mock (production) on a throwaway PostgreSQL over the same mock on a SQLite file, ${options.connections} connections, median of per-round ratios; each round's ${options.pgNewOrders} (PostgreSQL) and ${options.sqliteNewOrders} (SQLite) orders, spread over ${options.merchants} merchants and signed before the runs, are sent once. ${replicasLine}`
        ),
        "callbacks/s with many pending, PostgreSQL / SQLite": atLeast(
          pgCallbacks.perSecond / sqliteCallbacks.perSecond,
          0.5,
          "x",
          `callbacks delivered per second to a local receiver from ${pgCallbacks.pendingAtStart} pending (after ${pgCallbacks.skipped} not counted) by one mock on PostgreSQL, over the same on a SQLite file`
        )
      },
      figures: {
        cores,
        creates: {
          pgPerSecond: round(onePg, 0),
          sqlitePerSecond: round(median(sqliteRuns.map((run) => run.requestsPerSecond)), 0),
          ratioRounds: createRatios.map((ratio) => round(ratio)),
          pgRounds: pgRuns.map((run) => round(run.requestsPerSecond, 0)),
          sqliteRounds: sqliteRuns.map((run) => round(run.requestsPerSecond, 0)),
          // CPU per create of the mock process alone (PostgreSQL's own is not in it).
          mockCpuMsPerCreate: { pg: cpuOf(pgRuns), sqlite: cpuOf(sqliteRuns) },
          p99Ms: {
            pg: round(median(pgRuns.map((run) => run.p99Ms)), 1),
            sqlite: round(median(sqliteRuns.map((run) => run.p99Ms)), 1)
          }
        },
        replicas: { runs: replicaFigures, note: replicasLine },
        callbacks: {
          pg: { ...pgCallbacks, perSecond: round(pgCallbacks.perSecond, 1) },
          sqlite: { ...sqliteCallbacks, perSecond: round(sqliteCallbacks.perSecond, 1) }
        }
      }
    }
  } finally {
    await Promise.all(mocks.map((mock) => mock.stop()))
    await postgres.stop()
  }
}
