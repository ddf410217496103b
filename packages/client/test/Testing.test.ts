// @pc/client/testing as a merchant uses it (the README's "Unit-testing your webhook handler"): a
// callback signed with a generated test platform key passes the verifier built from the matching
// options, through the real Fetch handler; a tampered body, another key, an old timestamp and
// another appKey are refused. The signature is also checked with node:crypto directly, so the
// helper signs the contract's string and not merely something its own verifier accepts.
import { createPublicKey, verify } from "node:crypto"
import { describe, expect, it } from "vitest"
import { createCallbackVerifier } from "../src/Promise.js"
import * as Testing from "../src/Testing.js"

const appKey = "7e57c0de-0000-4000-8000-000000000001"

const post = (signed: Testing.SignedCallback, body = signed.body) =>
  new Request("http://localhost/webhook", { method: "POST", headers: signed.headers, body })

describe("Testing", () => {
  it("signs a callback that the matching verifier accepts and node:crypto verifies", async () => {
    const platformKey = await Testing.generatePlatformKey()
    const verifier = await createCallbackVerifier(
      Testing.verifierOptions({ appKey, platformPublicKeyPem: platformKey.publicKeyPem })
    )
    const seen: Array<string> = []
    const event = Testing.callbackEvent({ eventType: "order.failed", outerOrder: "M-1001" })
    expect(event.status).toBe("FAILED")
    const signed = await Testing.signCallback({ appKey, platformPrivateKeyPem: platformKey.privateKeyPem, event })
    expect(signed.body).toBe(JSON.stringify(event))
    expect(Object.keys(signed.headers)).toEqual(["Content-Type", "X-R-Ts", "X-R-Key-Version", "X-R-Signature"])

    const response = await verifier.handleCallbackRequest(post(signed), (e) => {
      seen.push(`${e.eventType} ${e.outerOrder}`)
    })
    expect(response.status).toBe(200)
    expect(seen).toEqual(["order.failed M-1001"])

    const signedString = `${appKey}.${signed.headers["X-R-Ts"]}.${signed.body}`
    const ok = verify(
      "sha256",
      Buffer.from(signedString),
      createPublicKey(platformKey.publicKeyPem),
      Buffer.from(signed.headers["X-R-Signature"], "base64")
    )
    expect(ok).toBe(true)
  })

  it("gives signatures that the verifier refuses when the body, key, time or appKey is wrong", async () => {
    const platformKey = await Testing.generatePlatformKey()
    const other = await Testing.generatePlatformKey()
    const verifier = await createCallbackVerifier({
      ...Testing.verifierOptions({ appKey, platformPublicKeyPem: platformKey.publicKeyPem }),
      replayGuard: false
    })
    const sign = (options: Partial<Testing.SignCallbackOptions>) =>
      Testing.signCallback({ appKey, platformPrivateKeyPem: platformKey.privateKeyPem, ...options })
    const reasonOf = (request: Request) =>
      verifier.verifyCallbackRequest(request).then(
        () => "accepted",
        (error: { reason?: string }) => error.reason
      )

    const good = await sign({})
    expect(await reasonOf(post(good))).toBe("accepted")
    expect(await reasonOf(post(good, good.body.replace("10.00", "10.01")))).toBe("BadSignature")
    expect(await reasonOf(post(await sign({ platformPrivateKeyPem: other.privateKeyPem })))).toBe("BadSignature")
    expect(await reasonOf(post(await sign({ timestamp: Date.now() - 10 * 60_000 })))).toBe("StaleTimestamp")
    expect(await reasonOf(post(await sign({ appKey: "7e57c0de-0000-4000-8000-000000000002" })))).toBe("BadSignature")
    expect(await reasonOf(post(await sign({ keyVersion: 2 })))).toBe("UnknownKeyVersion")
  })
})
