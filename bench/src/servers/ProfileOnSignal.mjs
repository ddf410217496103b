// Preloaded by `pnpm --filter @pc/bench profile` into the mock (`node --import <this>`): the first
// SIGUSR2 starts V8's CPU profiler, the second writes the profile to $PC_BENCH_PROFILE and prints a
// marker. Unlike `--cpu-prof`, the profile then holds only the load, not the start-up's module loading.
// With $PC_BENCH_HEAP_PROFILE set as well, V8's sampling heap profiler runs over the same span and
// counts every allocation, the short-lived ones the young generation's GC takes too (where a
// callback's GC time comes from), written there as a .heapprofile.
import { renameSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector"

const file = process.env.PC_BENCH_PROFILE
const heapFile = process.env.PC_BENCH_HEAP_PROFILE

/** Written aside, then renamed: the reader waits for the file to exist, so it must be whole. */
const writeWhole = (path, value) => {
  writeFileSync(`${path}.partial`, JSON.stringify(value))
  renameSync(`${path}.partial`, path)
}

if (file !== undefined) {
  const session = new Session()
  session.connect()
  let running = false
  process.on("SIGUSR2", () => {
    if (!running) {
      running = true
      if (heapFile !== undefined)
        session.post("HeapProfiler.startSampling", {
          samplingInterval: 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true
        })
      session.post("Profiler.enable", () => session.post("Profiler.start"))
      return
    }
    session.post("Profiler.stop", (error, result) => {
      if (error === null) writeWhole(file, result.profile)
      if (heapFile === undefined) {
        process.stdout.write("pc-bench:profile-written\n")
        return
      }
      session.post("HeapProfiler.stopSampling", (heapError, heap) => {
        if (heapError === null) writeWhole(heapFile, heap.profile)
        process.stdout.write("pc-bench:profile-written\n")
      })
    })
  })
}
