// The machine a run measured: what it is (CPU, cores, Node, OpenSSL) and how loaded it was while
// the run went on, since on a shared machine the ratios are only as good as that load allows.
import { cpus, loadavg, totalmem } from "node:os"
import { round } from "./Stats.js"

export interface MachineFacts {
  readonly cpu: string
  readonly cores: number
  readonly memoryMb: number
  readonly node: string
  readonly openssl: string
  readonly platform: string
  readonly date: string
}

/** What this machine and runtime are. */
export const machineFacts = (): MachineFacts => ({
  cpu: cpus()[0]?.model ?? "unknown",
  cores: cpus().length,
  memoryMb: Math.round(totalmem() / 2 ** 20),
  node: process.versions.node,
  openssl: process.versions.openssl,
  platform: `${process.platform} ${process.arch}`,
  date: new Date().toISOString()
})

export interface LoadSummary {
  /** One-minute load averages sampled every few seconds during the run. */
  readonly samples: ReadonlyArray<number>
  readonly min: number
  readonly max: number
  readonly mean: number
}

/** Samples the one-minute load average until `stop` is called; the samples describe the whole run. */
export const sampleLoad = (everyMs = 5_000) => {
  const samples: Array<number> = [loadavg()[0]!]
  const timer = setInterval(() => samples.push(loadavg()[0]!), everyMs)
  timer.unref()
  return {
    stop: (): LoadSummary => {
      clearInterval(timer)
      samples.push(loadavg()[0]!)
      return {
        samples: samples.map((s) => round(s, 2)),
        min: round(Math.min(...samples), 2),
        max: round(Math.max(...samples), 2),
        mean: round(samples.reduce((a, b) => a + b, 0) / samples.length, 2)
      }
    }
  }
}
