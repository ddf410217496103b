// Start-up of the mock as `pnpm mock` runs it: from spawn to the first `/healthz` 200 on
// `:memory:`, and its idle RSS then. The bare server's spawn-to-first-answer in the same run is the
// floor (Node itself and the loader) that no mock can beat.
import { atMost, type SuiteResult } from "./Results.js"
import { startBare, startMock } from "./Servers.js"
import { median, round, spread } from "./Stats.js"

export const startupSuite = async (options: {
  readonly spawns: number
  readonly warmUp: boolean
}): Promise<SuiteResult> => {
  const mockMs: Array<number> = []
  const bareMs: Array<number> = []
  const idleRssMb: Array<number> = []
  // CPU the mock used from spawn to ready: on a loaded machine wall time measures the neighbours.
  const mockCpuMs: Array<number> = []
  // One unmeasured start first: the loader's transform cache and the page cache are then warm, as
  // they are for a developer's second `pnpm mock`.
  if (options.warmUp) await (await startMock(":memory:")).stop()
  for (let i = 0; i < options.spawns; i++) {
    const bare = await startBare()
    bareMs.push(bare.readyMs)
    await bare.stop()
    const mock = await startMock(":memory:", { gc: true })
    mockMs.push(mock.readyMs)
    mockCpuMs.push(mock.cpuSeconds() * 1000)
    await new Promise((resolve) => setTimeout(resolve, 500))
    await mock.gc()
    idleRssMb.push(mock.rssMb())
    await mock.stop()
  }
  return {
    targets: {
      "mock spawn to first /healthz 200": atMost(
        median(mockMs),
        500,
        "ms",
        `median of ${options.spawns} spawns on :memory:${options.warmUp ? ", after one unmeasured start" : ""}`
      ),
      "mock idle RSS": atMost(
        median(idleRssMb),
        150,
        "MB",
        "RSS of the mock on :memory: half a second after it is ready and a GC, median of the spawns"
      )
    },
    figures: {
      mockReadyMs: mockMs.map((ms) => round(ms, 0)),
      mockCpuToReadyMs: mockCpuMs.map((ms) => round(ms, 0)),
      mockReadySpread: { ...spread(mockMs), relative: round(spread(mockMs).relative, 2) },
      bareReadyMs: bareMs.map((ms) => round(ms, 0)),
      mockIdleRssMb: round(median(idleRssMb), 1)
    }
  }
}
