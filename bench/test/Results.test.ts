// RESULTS.md is rewritten by every bench run, yet it also holds notes written by hand (the
// measurements behind design choices that code comments no longer carry): a run keeps them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { atLeast, combine, KEPT_NOTES_HEADING, keptNotes, writeResults } from "../src/Results.js"

const dir = mkdtempSync(join(tmpdir(), "pc-bench-results-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = combine(
  { demo: { targets: { ratio: atLeast(1.2, 1, "x", "a demo ratio") }, figures: {} } },
  {
    machine: { cpu: "test", cores: 2, memoryMb: 1, node: "20", openssl: "3", platform: "linux", date: "today" },
    load: { samples: [1], min: 1, max: 1, mean: 1 },
    mode: "smoke",
    durationSeconds: 1
  }
)

describe("RESULTS.md", () => {
  it("keeps the hand-written notes from their heading on, and rewrites the tables above them", () => {
    const file = join(dir, "RESULTS.md")
    const notes = `${KEPT_NOTES_HEADING}\n\n### Mock server\n\n- a figure\n`
    writeFileSync(file, `# Bench results\n\n| old table |\n\n${notes}`)
    writeResults(run, join(dir, "results"), file)
    const written = readFileSync(file, "utf8")
    expect(written).not.toContain("| old table |")
    expect(written).toContain("| demo: ratio | 1.2 x | >= 1 | met | a demo ratio |")
    expect(written.endsWith(notes)).toBe(true)
  })

  it("writes only the tables when there are no notes", () => {
    const file = join(dir, "fresh.md")
    writeResults(run, join(dir, "results"), file)
    expect(keptNotes(readFileSync(file, "utf8"))).toBe("")
    expect(keptNotes(`# x\n${KEPT_NOTES_HEADING}\nkept`)).toBe(`${KEPT_NOTES_HEADING}\nkept`)
  })
})
