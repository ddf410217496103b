// pc trigger when the first delivery does not arrive: the lines say why and what to run, in the
// words a newcomer needs (whose URL it is, how to change it), not only the errno.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, merchantEnv, pc, testMerchant } from "./support/Pc.js"

let mock: Mock
beforeAll(async () => {
  mock = await startMock()
}, 60_000)
afterAll(async () => {
  await mock?.close()
})

const setNotifyUrl = async (notifyUrl: string) => {
  const answer = await fetch(`${mock.url}/dev/merchants/${testMerchant.appKey}/notify-url`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ notifyUrl })
  })
  expect(answer.status).toBe(200)
}

describe("pc trigger, delivery not made", () => {
  it("says the merchant has no notify URL and how to receive the callback, when none is set", async () => {
    const ran = await pc(["trigger", "order.paid"], { env: merchantEnv(mock, "sandbox", freshConfigDir()) })
    const output = ran.stdout + ran.stderr
    expect(ran.code, output).toBe(0)
    expect(output).toMatch(/triggered order\.paid: order PC\S+/)
    expect(output).toContain("not delivered: the merchant has no notify URL")
    expect(output).toMatch(/npx pc listen .*npx pc callbacks resend \S+/)
  }, 120_000)

  it("names the refused URL as the merchant's notify URL, how to change it, and the retry", async () => {
    // A port nothing listens on: the state a listener that has ended leaves behind.
    const closed = `http://127.0.0.1:${await freePort()}/callbacks`
    await setNotifyUrl(closed)
    const ran = await pc(["trigger", "order.paid"], { env: merchantEnv(mock, "sandbox", freshConfigDir()) })
    const output = ran.stdout + ran.stderr
    expect(ran.code, output).toBe(0)
    expect(output).toContain(`not delivered to ${closed}: failed:`)
    expect(output).toContain("ECONNREFUSED")
    expect(output).toContain(`nothing listens there: ${closed} is the merchant's notify URL`)
    expect(output).toContain("npx pc merchants create --notify-url or PUT /dev/merchants/<appKey>/notify-url")
    expect(output).toContain("run npx pc listen to receive callbacks here")
    expect(output).toMatch(/the mock retries at \S+, as the service would; npx pc orders show PC\S+/)
  }, 120_000)
})
