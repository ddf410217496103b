// The bench's smoke test: `pnpm bench --smoke` runs every benchmark for one short iteration in its
// own processes (as a real run does) and must write results of the documented shape. No timing is
// asserted: on a shared machine the targets may be missed, which exits 1, not a crash.
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MOCK_IN_FLIGHT_PER_MERCHANT } from "../src/Growth.js"

const out = mkdtempSync(join(tmpdir(), "pc-bench-smoke-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

interface Written {
  machine: Record<string, unknown>
  load: { samples: Array<number>; min: number; max: number; mean: number }
  mode: string
  durationSeconds: number
  targets: Record<string, { value: number; target: number; met: boolean; rule: string; unit: string; note: string }>
  figures: Record<string, unknown>
  missed: Array<string>
}

describe("pnpm bench --smoke", () => {
  let run: { status: number | null; stdout: string; stderr: string }
  // Spawned, not spawnSync: a blocked worker would miss vitest's own messages for minutes.
  beforeAll(async () => {
    run = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "--smoke", "--out", out], {
        cwd: new URL("..", import.meta.url).pathname,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
      })
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      child.once("error", reject)
      child.once("exit", (status) => resolve({ status, stdout, stderr }))
    })
  })

  it("finishes, exiting 0 when every target is met and 1 when one is missed", () => {
    expect([0, 1], run.stderr.slice(-4_000)).toContain(run.status)
    const written = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as Written
    expect(run.status, run.stderr).toBe(written.missed.length === 0 ? 0 : 1)
  })

  it("writes the machine's facts and its load during the run", () => {
    const written = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as Written
    expect(written.mode).toBe("smoke")
    for (const fact of ["cpu", "cores", "node", "openssl", "date"]) expect(written.machine[fact]).toBeDefined()
    expect(written.machine.node).toBe(process.versions.node)
    expect(written.load.samples.length).toBeGreaterThanOrEqual(2)
  })

  it("writes every suite's targets as { value, target, met }, consistent with their rule", () => {
    const written = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as Written
    const suites = new Set(Object.keys(written.targets).map((name) => name.split(":")[0]))
    expect([...suites].sort()).toEqual(["adapters", "bundle", "client", "growth", "pg", "startup", "throughput"])
    expect(Object.keys(written.figures).sort()).toEqual([...suites].sort())
    for (const [name, t] of Object.entries(written.targets)) {
      expect(typeof t.value, name).toBe("number")
      expect(typeof t.target, name).toBe("number")
      expect(t.met, name).toBe(t.rule === "atLeast" ? t.value >= t.target : t.value <= t.target)
      expect(written.missed.includes(name), name).toBe(!t.met)
    }
    // The Prism peer ran (or the figures say why it could not).
    const prism = (written.figures.throughput as { prism: Record<string, string> }).prism
    expect("throughput: mock/Prism creates/s, 32 connections" in written.targets || prism.skipped !== undefined).toBe(
      true
    )
  })

  it("measures the bare deliverer with the dispatcher's own in-flight limit, and warms the mock up with a good and a bad run", () => {
    const written = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as Written
    // The dispatcher's constant is internal to the mock: read from its source, so that a change
    // there cannot leave the bench's ceiling measured at the old limit.
    const dispatcher = readFileSync(
      new URL("../../apps/mock-server/src/callbacks/EndpointSpeeds.ts", import.meta.url).pathname,
      "utf8"
    )
    const limit = /export const MAX_IN_FLIGHT_PER_MERCHANT = (\d+)/.exec(dispatcher)
    expect(Number(limit?.[1])).toBe(MOCK_IN_FLIGHT_PER_MERCHANT)
    const growth = written.figures.growth as {
      callbacks: {
        rounds: ReadonlyArray<number>
        bareDeliverer: {
          inFlight: number
          perSecond: number
          rounds: ReadonlyArray<number>
          mockOverBareRounds: ReadonlyArray<number>
        }
      }
    }
    expect(growth.callbacks.bareDeliverer.inFlight).toBe(MOCK_IN_FLIGHT_PER_MERCHANT)
    expect(growth.callbacks.bareDeliverer.perSecond).toBeGreaterThan(0)
    // A smoke run measures one round of each, the mock and the bare deliverer side by side.
    expect(growth.callbacks.rounds).toHaveLength(1)
    expect(growth.callbacks.bareDeliverer.rounds).toHaveLength(1)
    expect(growth.callbacks.bareDeliverer.mockOverBareRounds).toEqual([
      written.targets["growth: callbacks/s with many pending / bare deliverer's"]!.value
    ])
    const rss = (written.figures.throughput as { mockRss: { warmUpPairs: number } }).mockRss
    expect(rss.warmUpPairs).toBe(1)
  })

  it("prints every target beside its value and writes them to RESULTS.md", () => {
    const written = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as Written
    const markdown = readFileSync(join(out, "RESULTS.md"), "utf8")
    for (const name of Object.keys(written.targets)) {
      expect(run.stdout).toContain(name)
      expect(markdown).toContain(name)
    }
  })
})
