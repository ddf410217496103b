// Preloaded by the bench into a server under test (`node --expose-gc --import <this>`): SIGUSR2 runs
// a full garbage collection and then prints a marker, so the bench reads RSS after a GC without
// the server itself knowing anything about the bench. SIGUSR1 is Node's inspector signal; SIGUSR2 is free.
//
// Two collections half a second apart: V8 sweeps concurrently after a full GC and hands emptied
// pages back only when the sweep is done, so RSS read straight after one `gc()` counted pages on
// their way out. In one run of the throughput suite's sequence (bench/.scratch, not kept), the mock's
// RSS after one GC read 108.9 MB after the warm-up and 114.8 MB after 230,000 requests; after the
// second, 104.9 and 107.2 MB, with the live heap at 21-22 MB throughout.
//
// Then a second of quiet before the marker: after the second collection RSS still fell by 1.5 MB
// within a second (the pages V8 frees on background threads), at both of the throughput suite's
// readings alike, and did not move 2 and 4 s after (one full run with readings then; bench/.scratch).
const SETTLE_MS = 500
const QUIET_MS = 1_000

if (typeof globalThis.gc === "function") {
  process.on("SIGUSR2", () => {
    globalThis.gc()
    setTimeout(() => {
      globalThis.gc()
      // The live heap after the GC, in bytes: RSS keeps the heap V8 reserved under load, this does not.
      const heapUsed = process.memoryUsage().heapUsed
      setTimeout(() => process.stdout.write(`pc-bench:gc-done ${heapUsed}\n`), QUIET_MS)
    }, SETTLE_MS)
  })
}
