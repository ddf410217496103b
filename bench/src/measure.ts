// Timing helpers: run a body in rounds and keep the best rounds, so a noisy neighbour on a
// 2-core machine moves the baseline and the candidate alike.
import { cpus } from "node:os"

export interface Rate {
  readonly opsPerSecond: number
}

/** Operations per second of `op`, best of `rounds` rounds of `perRound` sequential awaits. */
export const rate = async (op: () => unknown, perRound: number, rounds = 5): Promise<Rate> => {
  let best = 0
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < perRound; i++) await op()
    const seconds = Number(process.hrtime.bigint() - start) / 1e9
    best = Math.max(best, perRound / seconds)
  }
  return { opsPerSecond: best }
}

/** Runs baseline and candidate in alternation, `pairs` times, and reports the median ratio. */
export const compare = async (
  baseline: () => Promise<Rate>,
  candidate: () => Promise<Rate>,
  pairs = 3
): Promise<{ readonly baseline: number; readonly candidate: number; readonly ratio: number }> => {
  const ratios: Array<number> = []
  const b: Array<number> = []
  const c: Array<number> = []
  for (let i = 0; i < pairs; i++) {
    const x = (await baseline()).opsPerSecond
    const y = (await candidate()).opsPerSecond
    b.push(x)
    c.push(y)
    ratios.push(y / x)
  }
  const median = (values: Array<number>) => [...values].sort((p, q) => p - q)[Math.floor(values.length / 2)]!
  return { baseline: median(b), candidate: median(c), ratio: median(ratios) }
}

export const machine = () => ({
  node: process.versions.node,
  cpu: cpus()[0]?.model ?? "unknown",
  cores: cpus().length
})
