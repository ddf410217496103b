// Preloaded by the bench into a server under test (`node --expose-gc --import <this>`): SIGUSR2 runs
// a full garbage collection and then prints a marker, so the bench reads RSS after a GC without
// the server itself knowing anything about the bench. SIGUSR1 is Node's inspector signal; SIGUSR2 is free.
if (typeof globalThis.gc === "function") {
  process.on("SIGUSR2", () => {
    globalThis.gc()
    // The live heap after the GC, in bytes: RSS keeps the heap V8 reserved under load, this does not.
    process.stdout.write(`pc-bench:gc-done ${process.memoryUsage().heapUsed}\n`)
  })
}
