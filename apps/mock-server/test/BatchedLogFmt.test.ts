// The mock's log writer on a real pipe: a reader that stops reading costs the mock a bounded amount
// of memory (lines beyond it are dropped, then counted in the log), and a failed stream is written
// no more. A reader that goes away (EPIPE) under `pc mock` is the CLI's test (apps/cli/test/Mock.test.ts).
import { spawn } from "node:child_process"
import { once } from "node:events"
import { describe, expect, it } from "vitest"
import { batchedWriter } from "../src/log/BatchedLogFmt.js"

const LIMIT = 64 * 1024
const line = (i: number) => `timestamp=2026-11-24T00:00:00.000Z level=INFO message=request n=${i} ${"x".repeat(150)}`

describe("the mock's batched log writer", () => {
  it("keeps at most its limit waiting for a reader that stops, drops the rest, and says how many once the reader is back", async () => {
    // The writes below run in one synchronous loop, so Node drains nothing meanwhile: once the pipe
    // is full, everything else queues in this process, as behind a reader that stopped. `cat`
    // starts reading a second later, for the catch-up.
    const reader = spawn("sh", ["-c", "sleep 1; exec cat"], { stdio: ["pipe", "pipe", "inherit"] })
    const out: Array<Buffer> = []
    reader.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    const writer = batchedWriter(reader.stdin, LIMIT)
    let written = 0
    let mostWaiting = 0
    // 40 MB of log in batches of 100 lines, while nothing is read.
    for (let batch = 0; batch < 2_000; batch++) {
      for (let i = 0; i < 100; i++) writer.write(line(written++))
      writer.flush()
      mostWaiting = Math.max(mostWaiting, reader.stdin.writableLength)
    }
    const dropped = writer.dropped()
    // Never more than the limit plus the one batch that crossed it.
    expect(mostWaiting).toBeLessThan(LIMIT + 100 * 250)
    expect(dropped).toBeGreaterThan(190_000)
    // The reader catches up; the next batch starts with the count.
    while (reader.stdin.writableLength > 0) await new Promise((resolve) => setTimeout(resolve, 20))
    writer.write(line(written++))
    writer.flush()
    reader.stdin.end()
    await once(reader, "exit")
    const lines = Buffer.concat(out).toString("utf8").trimEnd().split("\n")
    const notice = lines.findIndex((l) => l.includes("log lines dropped"))
    expect(lines[notice]).toContain(`message="${dropped} log lines dropped: stdout was not read`)
    expect(lines[notice]).toMatch(/^timestamp=\S+ level=WARN message=/)
    // Every line not dropped arrived whole and in order, the last one after the notice.
    expect(lines.length - 1).toBe(written - dropped)
    expect(lines.at(-1)).toBe(line(written - 1))
    expect(notice).toBe(lines.length - 2)
    const numbers = lines.filter((l) => !l.includes("dropped")).map((l) => Number(/ n=(\d+) /.exec(l)![1]))
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b))
  })

  it("writes nothing more to a stream that has failed or ended, and throws nothing", async () => {
    const reader = spawn("cat", [], { stdio: ["pipe", "ignore", "inherit"] })
    const writer = batchedWriter(reader.stdin, LIMIT)
    writer.write(line(0))
    writer.flush()
    reader.stdin.destroy()
    await once(reader, "exit")
    writer.write(line(1))
    expect(() => writer.flush()).not.toThrow()
    expect(reader.stdin.writableLength).toBe(0)
    expect(writer.dropped()).toBe(0)
  })
})
