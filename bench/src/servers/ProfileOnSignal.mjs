// Preloaded by `pnpm --filter @pc/bench profile` into the mock (`node --import <this>`): the first
// SIGUSR2 starts V8's CPU profiler, the second writes the profile to $PC_BENCH_PROFILE and prints a
// marker. Unlike `--cpu-prof`, the profile then holds only the load, not the start-up's module loading.
import { renameSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector"

const file = process.env.PC_BENCH_PROFILE
if (file !== undefined) {
  const session = new Session()
  session.connect()
  let running = false
  process.on("SIGUSR2", () => {
    if (!running) {
      running = true
      session.post("Profiler.enable", () => session.post("Profiler.start"))
      return
    }
    session.post("Profiler.stop", (error, result) => {
      // Written aside, then renamed: the reader waits for the file to exist, so it must be whole.
      if (error === null) {
        writeFileSync(`${file}.partial`, JSON.stringify(result.profile))
        renameSync(`${file}.partial`, file)
      }
      process.stdout.write("pc-bench:profile-written\n")
    })
  })
}
