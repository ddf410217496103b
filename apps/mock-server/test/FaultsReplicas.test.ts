// The fault setting of replicas on PostgreSQL (CONTRACT.md "Faults and time"): two mock processes
// on one real (throwaway) database. A setting PUT on one replica is the other's too, read back by
// its GET and applied to the create-orders it answers, within a poll even before anyone reads it.
import { startPostgres } from "@pc/servers"
import { until } from "@pc/test-support"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { createOrder, dev } from "./support/mock.js"
import { killAllMocks, spawnMock } from "./support/mockProcess.js"

const postgres = await startPostgres()
afterEach(() => killAllMocks())
afterAll(() => postgres.stop())

let sequence = 0
const orderBody = () =>
  JSON.stringify({ orderId: `faults-replicas-${process.pid}-${++sequence}`, amount: "1.00", currency: "USD" })

describe("the fault setting of replicas on PostgreSQL", () => {
  it("is one setting: a PUT on replica A is seen by GET on replica B and applied there; a DELETE on B clears it on A", async () => {
    const db = await postgres.createDatabase("faults_replicas")
    const [a, b] = await Promise.all([0, 1].map(() => spawnMock(["--env", "production", "--db", db])))
    expect((await createOrder(b!.url, orderBody())).status).toBe(200)

    const setting = { seed: 5, createOrder: { serverErrorRate: 1 } }
    expect((await dev(a!.url, "PUT", "/dev/faults", setting)).json.data).toEqual(setting)
    expect((await dev(b!.url, "GET", "/dev/faults")).json.data).toEqual(setting)
    const faulted = await createOrder(b!.url, orderBody())
    expect(faulted.status).toBe(500)
    expect(faulted.headers.get("x-mock-fault")).toBe("serverError")
    expect(faulted.json.code).toBe("internalError")

    // Taken in by B's poll, without a GET on B first.
    const lost = { seed: 6, createOrder: { lostResponseRate: 1 } }
    await dev(a!.url, "PUT", "/dev/faults", lost)
    const seenByB = await until(
      async () => {
        const answer = await createOrder(b!.url, orderBody())
        return answer.headers.get("x-mock-fault") === "lostResponse" ? answer : undefined
      },
      "replica B applying replica A's new setting",
      { timeoutMs: 5_000, intervalMs: 100 }
    )
    expect(seenByB.status).toBe(500)

    expect((await dev(b!.url, "DELETE", "/dev/faults")).json.data).toEqual({})
    expect((await dev(a!.url, "GET", "/dev/faults")).json.data).toEqual({})
    const clean = await createOrder(a!.url, orderBody())
    expect(clean.status).toBe(200)
    expect(clean.headers.get("x-mock-fault")).toBeNull()
  })

  it("a replica started without --faults takes in the shared setting; one started with --faults replaces it for all", async () => {
    const db = await postgres.createDatabase("faults_replicas_start")
    const first = { seed: 9, callbacks: { duplicateRate: 0.5 } }
    const a = await spawnMock(["--env", "production", "--db", db, "--faults", JSON.stringify(first)])
    const b = await spawnMock(["--env", "production", "--db", db])
    expect((await dev(b.url, "GET", "/dev/faults")).json.data).toEqual(first)
    const second = { seed: 10, createOrder: { timeoutRate: 0.2 } }
    const c = await spawnMock(["--env", "production", "--db", db, "--faults", JSON.stringify(second)])
    for (const mock of [a, b, c]) expect((await dev(mock.url, "GET", "/dev/faults")).json.data).toEqual(second)
  })
})
