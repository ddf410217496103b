// The floor under a signed create: the CPU of the parts no implementation of the contract can skip,
// measured in this process. The bare server's CPU per request already holds reading the request,
// verifying the RSA signature, parsing the JSON and writing the envelope; what it lacks is storage:
// the lookup by (appKey, orderId) that idempotency needs and the insert of a new order, one commit
// each, on the mock's own database file with its settings (WAL, synchronous=NORMAL). A mock with no
// overhead of its own would cost bare + storage, so bare / (bare + storage) is the highest
// mock/bare ratio any implementation could reach on this machine.
import Database from "better-sqlite3"
import { insertOrder } from "./Growth.js"
import { TEST_MERCHANT_APP_KEY } from "./Servers.js"
import { round } from "./Stats.js"

const cpuMs = (work: () => void): number => {
  const before = process.cpuUsage()
  work()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

/** CPU per lookup and per insert of an order on `file` (a database the mock made and closed), in ms. */
export const storageCpuMs = (file: string, count: number) => {
  const db = new Database(file)
  try {
    db.pragma("journal_mode = WAL")
    db.pragma("synchronous = NORMAL")
    const lookup = db.prepare("SELECT * FROM orders WHERE app_key = ? AND outer_order = ?")
    const insert = insertOrder(db)
    const tag = `floor-${Date.now()}`
    const now = Date.now()
    const insertMs = cpuMs(() => {
      for (let i = 0; i < count; i++) insert(`PCFLOOR${tag}${i}`, `${tag}-${i}`, "CREATED", now + 3_600_000)
    })
    const lookupMs = cpuMs(() => {
      for (let i = 0; i < count; i++) lookup.get(TEST_MERCHANT_APP_KEY, `${tag}-${i}`)
    })
    return { insertMs: round(insertMs / count, 4), lookupMs: round(lookupMs / count, 4) }
  } finally {
    db.close()
  }
}

/** The floor of a create's CPU and the mock/bare ratio it allows, from the bare server's CPU per request. */
export const floor = (file: string, bareCpuMsPerRequest: number, count = 2_000) => {
  const storage = storageCpuMs(file, count)
  const floorMs = bareCpuMsPerRequest + storage.insertMs + storage.lookupMs
  return {
    ...storage,
    bareCpuMsPerRequest,
    floorCpuMsPerCreate: round(floorMs, 4),
    highestMockOverBare: round(bareCpuMsPerRequest / floorMs, 3)
  }
}
