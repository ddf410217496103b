// pc clock show / advance: the mock's clock moved forward from the command line, against a real mock.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, pc, pcJson } from "./support/Pc.js"

const env = { PC_CONFIG_DIR: freshConfigDir() }

let mock: Mock
beforeAll(async () => {
  mock = await startMock()
}, 60_000)
afterAll(() => mock?.close())

interface ClockState {
  readonly now: string
  readonly offsetMs: number
}

describe("pc clock", () => {
  it("shows the clock, moves it 30 minutes and then 90 seconds on, and says where it stands", async () => {
    const shown = await pcJson<ClockState>(["clock", "show", "--base-url", mock.url], { env })
    expect(shown.code).toBe(0)
    expect(shown.json.offsetMs).toBe(0)
    const moved = await pcJson<ClockState>(["clock", "advance", "30m", "--base-url", mock.url], { env })
    expect(moved.code).toBe(0)
    expect(moved.json.offsetMs).toBe(30 * 60_000)
    expect(Date.parse(moved.json.now) - Date.now()).toBeGreaterThan(29 * 60_000)
    const human = await pc(["clock", "advance", "90s", "--base-url", mock.url], { env })
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^mock time \S+ \(moved forward 1890000 ms\)$/m)
  })

  it("refuses a span it cannot read as a usage error, without calling the mock", async () => {
    for (const duration of ["0m", "soon", "1.5h"]) {
      const refused = await pc(["clock", "advance", duration, "--base-url", mock.url], { env })
      expect({ duration, code: refused.code }).toEqual({ duration, code: 2 })
      expect(refused.stderr).toMatch(/500ms, 90s, 30m, 2h or 1d/)
    }
    expect((await pcJson<ClockState>(["clock", "show", "--base-url", mock.url], { env })).json.offsetMs).toBe(
      30 * 60_000 + 90_000
    )
  })
})
