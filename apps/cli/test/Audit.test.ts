// pc callbacks audit: against a correct endpoint it prints every check as it completes and a summary
// and exits 0; --json prints the report object alone; a flawed endpoint exits 1 with the check it breaks.
import type * as CallbackAudit from "@pc/core/CallbackAudit"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FlawedEndpoint, startFlawedEndpoint, startHostile } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, merchantEnv, pc, pcBackground, pcJson, testMerchant } from "./support/Pc.js"

let mock: Mock
let correct: FlawedEndpoint
let flawed: FlawedEndpoint
let env: Record<string, string>
beforeAll(async () => {
  mock = await startMock({ environment: "production" })
  correct = await startFlawedEndpoint(mock.url, testMerchant.appKey, "none")
  flawed = await startFlawedEndpoint(mock.url, testMerchant.appKey, "past-only-window")
  env = merchantEnv(mock, "production", freshConfigDir())
}, 60_000)
afterAll(async () => {
  await correct?.close()
  await flawed?.close()
  await mock?.close()
})

describe("pc callbacks audit", () => {
  it("prints each check and a summary, exit 0, for a correct endpoint", async () => {
    const ran = await pc(["callbacks", "audit", correct.url], { env })
    expect(ran.code, ran.stderr).toBe(0)
    const lines = ran.stdout.trim().split("\n")
    expect(lines).toHaveLength(20)
    expect(lines[0]).toMatch(/^pass valid\s+200\s+\d+ ms {2}accepted/)
    expect(lines.at(-1)).toMatch(/^passed: 19 pass, 0 warn, 0 fail, http:\/\/127\.0\.0\.1:\d+\/callbacks \(production/)
  }, 60_000)

  it("--json prints the report object; a flawed endpoint exits 1 naming its check", async () => {
    const ran = await pcJson<CallbackAudit.AuditReport>(["callbacks", "audit", flawed.url], { env })
    expect(ran.code).toBe(1)
    expect(ran.json.passed).toBe(false)
    expect(ran.json.checks.filter((c) => c.verdict === "fail").map((c) => c.id)).toEqual(["future-timestamp"])
    const good = await pcJson<CallbackAudit.AuditReport>(["callbacks", "audit", correct.url], { env })
    expect(good.code).toBe(0)
    expect(good.json.passed).toBe(true)
  }, 60_000)

  it("prints each check as it completes, not all at the end", async () => {
    // An endpoint that never answers: each check waits out the callback timeout (10 s), so a line
    // printed while the process still runs and before the summary was printed as the check ended.
    const hang = await startHostile("hang")
    try {
      const running = pcBackground(["callbacks", "audit", hang.url], { env })
      const first = await running.waitForLine((line) => /^\S+ valid\s/.test(line), "the first check's line")
      expect(first).toContain("no answer")
      const stillRunning = await Promise.race([running.exited.then(() => false), Promise.resolve(true)])
      expect(stillRunning).toBe(true)
      expect(running.stdout()).not.toMatch(/^(passed|failed):/m)
      expect(await running.exited).toBe(1)
      expect(running.stdout()).toMatch(/^failed: /m)
    } finally {
      await hang.close()
    }
  }, 90_000)
})
