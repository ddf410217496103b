// A quick load from a separate process against 1, 2 and 3 mock replicas on one throwaway
// PostgreSQL: signed creates per second (32 concurrent clients, round-robin over the replicas) and
// callbacks per second (300 orders paid at once, until a local receiver has all 300 callbacks).
// Run from apps/mock-server: node --import tsx scripts/replica-load.ts [seconds]
import { startPostgres } from "@pc/servers"
import { TEST_MERCHANT_APP_KEY } from "../src/TestMerchant.js"
import { createOrder, dev } from "../test/support/mock.js"
import { killAllMocks, spawnMock } from "../test/support/mockProcess.js"
import { startReceiver } from "../test/support/receiver.js"

const seconds = Number(process.argv[2] ?? 10)

/** A create, retried once when a kept-alive connection was closed under it (the request is idempotent). */
const create = (url: string, body: string) => createOrder(url, body).catch(() => createOrder(url, body))
const pg = await startPostgres()
try {
  for (const n of [1, 2, 3]) {
    const db = await pg.createDatabase(`load_${n}`)
    const mocks = await Promise.all(
      Array.from({ length: n }, () => spawnMock(["--env", "production", "--db", db, "--callback-backoff-ms", "1000"]))
    )
    // Creates: 32 clients, each creating distinct orders in a loop for `seconds`.
    let created = 0
    let failed = 0
    const until = Date.now() + seconds * 1000
    const t0 = performance.now()
    await Promise.all(
      Array.from({ length: 32 }, async (_, client) => {
        for (let i = 0; Date.now() < until; i++) {
          const url = mocks[(client + i) % n]!.url
          const body = JSON.stringify({ orderId: `load-${client}-${i}`, amount: "1.00", currency: "USD" })
          const res = await create(url, body).catch(() => undefined)
          if (res?.json.code === "SUCCESS") created++
          else failed++
        }
      })
    )
    const createsPerS = created / ((performance.now() - t0) / 1000)
    // Callbacks: 300 fresh orders, paid through the replicas at once, delivered to one receiver.
    const receiver = await startReceiver(200)
    await dev(mocks[0]!.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: receiver.url })
    const sns: Array<string> = []
    for (let i = 0; i < 300; i += 30) {
      const batch = await Promise.all(
        Array.from({ length: 30 }, async (_, j) => {
          const res = await createOrder(
            mocks[(i + j) % n]!.url,
            JSON.stringify({ orderId: `cb-${i + j}`, amount: "1.00", currency: "USD" })
          )
          return (res.json.data as { orderSn: string }).orderSn
        })
      )
      sns.push(...batch)
    }
    const t1 = performance.now()
    await Promise.all(
      Array.from({ length: 32 }, async (_, client) => {
        for (let i = client; i < sns.length; i += 32) {
          const pay = () => dev(mocks[i % n]!.url, "POST", `/dev/orders/${sns[i]}/pay`)
          await pay().catch(pay)
        }
      })
    )
    await receiver.waitFor(300, undefined, 120_000)
    const callbacksPerS = 300 / ((performance.now() - t1) / 1000)
    console.log(
      JSON.stringify({
        replicas: n,
        createsPerS: Math.round(createsPerS),
        createFailures: failed,
        callbacksPerS: Math.round(callbacksPerS)
      })
    )
    await receiver.close()
    killAllMocks()
  }
} finally {
  killAllMocks()
  await pg.stop()
}
