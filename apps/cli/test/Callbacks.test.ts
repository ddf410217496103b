// pc callbacks sign / verify: a callback signed with a test platform key verifies with
// `pc callbacks verify` and with openssl; a changed byte is refused with exit code 1 and the raw-body
// hint; without --platform-key the keys come from the mock; an unreachable mock is exit code 3.
import { execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Mock, startMock } from "@pc/test-support/mock"
import { freshConfigDir, pcJson } from "./support/Pc.js"

const appKey = "7e57c0de-0000-4000-8000-000000000001"
const dir = mkdtempSync(join(tmpdir(), "pc-callbacks-"))
const platformPrivate = join(dir, "platform-private.pem")
const platformPublic = join(dir, "platform-public.pem")
const bodyFile = join(dir, "event.json")
const body =
  '{"eventId":"evt_1","eventType":"order.paid","orderSn":"SN1","outerOrder":"M-1","amount":"10.00",' +
  '"currency":"USD","status":"PAID","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z"}'
const env = { PC_CONFIG_DIR: freshConfigDir(), PC_APP_KEY: appKey }

let mock: Mock
beforeAll(async () => {
  execFileSync("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", platformPrivate])
  execFileSync("openssl", ["pkey", "-in", platformPrivate, "-pubout", "-out", platformPublic])
  writeFileSync(bodyFile, body)
  mock = await startMock()
}, 60_000)
afterAll(() => mock?.close())

interface Signed {
  readonly headers: Record<string, string>
  readonly timestamp: number
  readonly keyVersion: number
}

describe("pc callbacks", () => {
  it("signs a callback that pc callbacks verify and openssl both accept, and refuses a changed byte", async () => {
    const signed = await pcJson<Signed>(
      ["callbacks", "sign", "--body", `@${bodyFile}`, "--platform-key", platformPrivate, "--key-version", "3"],
      { env }
    )
    expect(signed.code).toBe(0)
    expect(signed.json.headers["X-R-Key-Version"]).toBe("3")
    const ts = signed.json.headers["X-R-Ts"]!
    const signature = signed.json.headers["X-R-Signature"]!

    // openssl, on the contract's string <appKey>.<X-R-Ts>.<body>
    const message = join(dir, "signed-string")
    const signatureFile = join(dir, "signature.bin")
    writeFileSync(message, `${appKey}.${ts}.${body}`)
    writeFileSync(signatureFile, Buffer.from(signature, "base64"))
    const openssl = execFileSync("openssl", [
      "dgst",
      "-sha256",
      "-verify",
      platformPublic,
      "-signature",
      signatureFile,
      message
    ]).toString()
    expect(openssl.trim()).toBe("Verified OK")

    const verifyArgs = [
      "callbacks",
      "verify",
      "--ts",
      ts,
      "--signature",
      signature,
      "--key-version",
      "3",
      "--env",
      "sandbox"
    ]
    const verified = await pcJson([...verifyArgs, "--body", `@${bodyFile}`, "--platform-key", platformPublic], { env })
    expect(verified.code).toBe(0)
    expect(verified.json).toMatchObject({
      verdict: "verified",
      keyVersion: 3,
      event: { eventType: "order.paid", orderSn: "SN1" }
    })

    const changed = await pcJson(
      [...verifyArgs, "--body", body.replace("10.00", "10.0"), "--platform-key", platformPublic],
      { env }
    )
    expect(changed.code).toBe(1)
    expect(changed.json).toMatchObject({
      error: { kind: "Refused", code: "BadSignature", message: expect.stringMatching(/raw body/) }
    })
  }, 180_000)

  it("verifies with the mock's platform keys when no key file is given; exit 3 when the mock is unreachable", async () => {
    // Signed with the TEST platform key: the mock's keys do not verify it (exit 1, not a crash).
    const signed = await pcJson<Signed>(["callbacks", "sign", "--body", body, "--platform-key", platformPrivate], {
      env
    })
    const args = [
      "callbacks",
      "verify",
      "--body",
      body,
      "--ts",
      signed.json.headers["X-R-Ts"]!,
      "--signature",
      signed.json.headers["X-R-Signature"]!,
      "--key-version",
      "1"
    ]
    const refused = await pcJson(args, { env: { ...env, PC_BASE_URL: mock.url } })
    expect(refused.code).toBe(1)
    expect(refused.json).toMatchObject({ error: { code: "BadSignature" } })
    const unreachable = await pcJson(args, { env: { ...env, PC_BASE_URL: "http://127.0.0.1:9" } })
    expect(unreachable.code).toBe(3)
    expect(unreachable.json).toMatchObject({ error: { kind: "Network", hint: expect.stringMatching(/pc mock/) } })
  }, 180_000)
})
