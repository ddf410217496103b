// pc faults set / show / clear and pc mock --faults: the mock's faults from the command line,
// against a real mock, with a real signed create-order to see the fault happen.
import { Canonical, Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { NodeCrypto } from "@pc/crypto-node"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, pc, pcBackground, pcJson, type Running, testMerchant } from "./support/Pc.js"

const env = { PC_CONFIG_DIR: freshConfigDir() }
const dir = mkdtempSync(join(tmpdir(), "pc-faults-"))
const SETTING = { seed: 7, createOrder: { serverErrorRate: 1 } }

let mock: Mock
const running: Array<Running> = []
beforeAll(async () => {
  mock = await startMock()
}, 60_000)
afterAll(async () => {
  for (const child of running) child.child.kill("SIGKILL")
  await mock?.close()
})

/** A create-order signed by the test merchant: its status and X-Mock-Fault. */
const created = async (url: string) => {
  const body = JSON.stringify({ orderId: `cli-fault-${Date.now()}-${Math.random()}`, amount: "1.00", currency: "USD" })
  const timestamp = String(Date.now())
  const signer = await NodeCrypto.importPrivateKey(testMerchant.privateKeyPem())
  const signature = await signer.sign(
    Canonical.requestStringToSign({
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      appKey: testMerchant.appKey,
      timestamp,
      body
    })
  )
  const response = await fetch(`${url}${Wire.CREATE_ORDER_PATH}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [Headers.RequestHeaders.appKey]: testMerchant.appKey,
      [Headers.RequestHeaders.timestamp]: timestamp,
      [Headers.RequestHeaders.keyVersion]: "1",
      [Headers.RequestHeaders.signature]: signature
    },
    body
  })
  return `${response.status} ${response.headers.get("x-mock-fault") ?? "-"}`
}

describe("pc faults", () => {
  it("sets a setting from inline JSON or a file, shows it, and clears it", async () => {
    expect((await pcJson(["faults", "show", "--base-url", mock.url], { env })).json).toEqual({})
    const set = await pcJson(["faults", "set", "--base-url", mock.url, JSON.stringify(SETTING)], { env })
    expect(set.code).toBe(0)
    expect(set.json).toEqual(SETTING)
    expect(await created(mock.url)).toBe("500 serverError")
    const cleared = await pc(["faults", "clear", "--base-url", mock.url], { env })
    expect(cleared.stdout.trim()).toBe("no faults")
    expect(await created(mock.url)).toBe("200 -")
    const file = join(dir, "faults.json")
    writeFileSync(file, JSON.stringify({ createOrder: { lostResponseRate: 1 } }))
    expect((await pcJson(["faults", "set", "--base-url", mock.url, file], { env })).json).toEqual({
      createOrder: { lostResponseRate: 1 }
    })
    expect(await created(mock.url)).toBe("500 lostResponse")
    await pc(["faults", "clear", "--base-url", mock.url], { env })
  })

  it("refuses a setting out of range as a usage error, without changing the mock's", async () => {
    const refused = await pc(["faults", "set", "--base-url", mock.url, '{"createOrder":{"lostResponseRate":2}}'], {
      env
    })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/createOrder\.lostResponseRate/)
    expect((await pcJson(["faults", "show", "--base-url", mock.url], { env })).json).toEqual({})
  })
})

describe("pc mock --faults", () => {
  it("starts with the faults given, and refuses a bad setting with exit code 2", async () => {
    const bad = await pc(["mock", "--port", "0", "--db", ":memory:", "--faults", '{"seed":"x"}'], { env })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--faults: seed/)
    const served = pcBackground(["mock", "--port", "0", "--db", ":memory:", "--faults", JSON.stringify(SETTING)], {
      env
    })
    running.push(served)
    const line = await served.waitForLine((l) => /http:\/\/127\.0\.0\.1:\d+/.test(l), "the mock's URL")
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(line)![0]
    expect(await created(url)).toBe("500 serverError")
    served.child.kill("SIGINT")
  }, 60_000)
})
