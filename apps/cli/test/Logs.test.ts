// pc logs tail over a real mock: a create-order signed over other bytes than those sent shows up
// with its signature verdict (invalid, which the sandbox lets through) and likely cause (the body
// re-serialised), as one JSON object per line with --json and as a readable line without;
// Ctrl-C (SIGINT) ends it cleanly.
import { RequestSigning } from "@pc/client"
import { KeyRing } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { NodeCrypto } from "@pc/crypto-node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, pcBackground, type Running, testMerchant } from "./support/Pc.js"

let mock: Mock
const tails: Array<Running> = []
beforeAll(async () => {
  mock = await startMock()
}, 60_000)
afterAll(async () => {
  for (const tail of tails) tail.child.kill("SIGKILL")
  await mock?.close()
})

/** Starts `pc logs tail` and returns once it shows requests (a /healthz it was sent appears). */
const startTail = async (args: ReadonlyArray<string>): Promise<Running> => {
  const tail = pcBackground(["logs", "tail", ...args], {
    env: { PC_CONFIG_DIR: freshConfigDir(), PC_BASE_URL: mock.url }
  })
  tails.push(tail)
  // The mock keeps no events for later subscribers: knock until the tail sees one.
  let seen = false
  void tail
    .waitForLine((l) => l.includes("/healthz"), "a /healthz request")
    .then(() => {
      seen = true
    })
  while (!seen) {
    if (tail.child.exitCode !== null) throw new Error(`pc logs tail exited:\n${tail.stdout()}\n${tail.stderr()}`)
    await fetch(`${mock.url}/healthz`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return tail
}

describe("pc logs tail", () => {
  it("shows a create-order signed over other bytes with verdict invalid, then stops on SIGINT", async () => {
    const jsonTail = await startTail(["--json"])
    const humanTail = await startTail([])

    const ring = await KeyRing.importSigners(NodeCrypto, { 1: testMerchant.privateKeyPem() })
    const signed = JSON.stringify({ orderId: `LOGS-${Date.now()}`, amount: "2.00", currency: "USD" })
    const headers = await RequestSigning.sign(ring, {
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      appKey: testMerchant.appKey,
      timestamp: Date.now(),
      body: new TextEncoder().encode(signed)
    })
    // The same JSON, re-serialised with indentation: other bytes than the signature covers.
    const sent = JSON.stringify(JSON.parse(signed), null, 2)
    const answer = await fetch(`${mock.url}${Wire.CREATE_ORDER_PATH}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: sent
    })
    expect(answer.headers.get("x-r-signature-check")).toBe("invalid")
    const requestId = answer.headers.get("x-request-id")

    const event = JSON.parse(
      await jsonTail.waitForLine((l) => l.includes(Wire.CREATE_ORDER_PATH), "the create-order request")
    )
    expect(event).toMatchObject({
      type: "request",
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      status: answer.status,
      requestId,
      signature: { verdict: "invalid" }
    })
    // The mock's diagnosis of the mismatch rides along: the body was re-serialised after signing.
    expect(event.signature.likelyCause).toMatch(/re-serialised/)
    expect(typeof event.durationMs).toBe("number")
    // --json: stdout holds nothing but JSON objects, one per line.
    for (const l of jsonTail.stdout().trim().split("\n")) expect(() => JSON.parse(l)).not.toThrow()

    const human = await humanTail.waitForLine((l) => l.includes(Wire.CREATE_ORDER_PATH), "the readable line")
    expect(human).toContain(`POST ${Wire.CREATE_ORDER_PATH} ${answer.status}`)
    expect(human).toContain(`req=${requestId}`)
    expect(human).toContain("signature invalid")
    expect(human).toMatch(/\(likely: .*re-serialised/)

    for (const tail of [jsonTail, humanTail]) tail.child.kill("SIGINT")
    expect(await jsonTail.exited).toBe(0)
    expect(await humanTail.exited).toBe(0)
  }, 120_000)
})
