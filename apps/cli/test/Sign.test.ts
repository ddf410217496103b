// pc sign against a real production mock (which checks every signature): the headers it prints,
// and the curl command it prints run by a shell, both get SUCCESS for the exact bytes given.
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, merchantEnv, pc, pcJson } from "./support/Pc.js"

let mock: Mock
let env: Record<string, string>

beforeAll(async () => {
  mock = await startMock({ environment: "production" })
  env = merchantEnv(mock, "production", freshConfigDir())
}, 60_000)
afterAll(() => mock?.close())

describe("pc sign", () => {
  it("prints headers that sign the exact bytes, and a curl command that the mock accepts", async () => {
    // Spaces and key order as given: these bytes, not a re-serialisation, are signed and sent.
    const body = '{ "orderId": "S-1",  "currency": "USD", "amount": "12.50" }'
    const signed = await pcJson<{ url: string; headers: Record<string, string> }>(["sign", "--body", body], { env })
    expect(signed.code).toBe(0)
    expect(Object.keys(signed.json.headers)).toEqual(["X-R-AK", "X-R-TS", "X-R-KEY-VERSION", "X-R-Signature"])
    const response = await fetch(signed.json.url, {
      method: "POST",
      headers: { ...signed.json.headers, "content-type": "application/json" },
      body
    })
    expect(await response.json()).toMatchObject({ code: "SUCCESS", data: { orderSn: expect.any(String) } })
    // One byte more and production refuses it.
    const tampered = await fetch(signed.json.url, {
      method: "POST",
      headers: { ...signed.json.headers, "content-type": "application/json" },
      body: `${body} `
    })
    expect(await tampered.json()).toMatchObject({ code: "signError" })

    const file = join(mkdtempSync(join(tmpdir(), "pc-sign-")), "order's body.json")
    writeFileSync(file, '{"orderId":"S-2","amount":"1.00","currency":"JPY"}'.replace("1.00", "1"))
    const curl = await pc(["sign", "--body", `@${file}`, "--curl"], { env })
    expect(curl.code).toBe(0)
    expect(curl.stdout).toMatch(/^curl -sS -X POST /)
    // Asynchronously: the mock runs in this process and must stay free to answer.
    const answer = JSON.parse((await promisify(execFile)("sh", ["-c", curl.stdout])).stdout)
    expect(answer).toMatchObject({ code: "SUCCESS" })
  }, 120_000)

  it("is a usage error (exit 2) without an appKey or key file, saying how to set them", async () => {
    const ran = await pcJson(["sign", "--body", "{}"], { env: { PC_CONFIG_DIR: freshConfigDir() } })
    expect(ran.code).toBe(2)
    expect(ran.json).toMatchObject({
      error: { kind: "Usage", message: "no appKey", hint: expect.stringMatching(/PC_APP_KEY/) }
    })
  }, 60_000)
})
