// Run by ServerHeap.test.ts in a process of its own (V8's flags are the whole process's):
// `node --import tsx HeapChild.ts <limit|none> <rounds>` allocates like a server whose requests
// overlap (a sliding window of live objects) and prints the largest new space seen after its GCs,
// in MB, once the event loop has turned after each round (where the observer steers), and whether
// a code cache made before the limits is still taken after their release (V8 checks its flags).
import { setImmediate as turn } from "node:timers/promises"
import { getHeapSpaceStatistics } from "node:v8"
import { Script } from "node:vm"
import { limitServerHeap } from "../../src/process/ServerHeap.js"

const newSpaceMb = () =>
  (getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0) / 1024 / 1024

const source = "(function served(round) { return round + 1 })"
const cache = new Script(source).createCachedData()
const release = process.argv[2] === "limit" ? limitServerHeap({ maxSemiSpaceMb: 4, heapGrowingPercent: 50 }) : () => {}
const rounds = Number(process.argv[3] ?? 400)
const window: Array<unknown> = new Array(20_000).fill(null)
let next = 0
const atStart = newSpaceMb()
let largest = atStart
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < 2_000; i++) {
    window[next] = { round, i, text: `request ${round}-${i}`, list: [round, i] }
    next = (next + 1) % window.length
  }
  await turn()
  largest = Math.max(largest, newSpaceMb())
}
release()
const cacheTaken = !new Script(source, { cachedData: cache }).cachedDataRejected
process.stdout.write(`${JSON.stringify({ atStartMb: atStart, largestNewSpaceMb: largest, cacheTaken })}\n`)
