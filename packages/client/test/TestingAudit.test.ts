// @pc/client/testing's in-process audit: the same battery as the mock's, against Fetch handlers.
// This package's own verifier passes with nothing acted on twice; a handler that acts on every
// delivery fails the duplicate checks; one that verifies a re-serialised body fails its check.
import { execFile } from "node:child_process"
import { createPublicKey, verify } from "node:crypto"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { createCallbackVerifier } from "../src/Promise.js"
import * as Testing from "../src/Testing.js"

const appKey = "7e57c0de-0000-4000-8000-000000000001"
const failed = (report: { checks: ReadonlyArray<{ id: string; verdict: string }> }) =>
  report.checks.filter((c) => c.verdict === "fail").map((c) => c.id)

describe("Testing.auditHandler", () => {
  it("passes this package's own callback handler, with every duplicate acted on once", async () => {
    const platformKey = await Testing.generatePlatformKey()
    const verifier = await createCallbackVerifier(
      Testing.verifierOptions({ appKey, platformPublicKeyPem: platformKey.publicKeyPem })
    )
    const stored = new Set<string>()
    let acted = 0
    const report = await Testing.auditHandler(
      (request) =>
        verifier.handleCallbackRequest(request, (event) => {
          if (stored.has(event.eventId)) return
          stored.add(event.eventId)
          acted += 1
        }),
      { appKey, platformKey, actedOn: () => acted }
    )
    expect(failed(report)).toEqual([])
    expect(report.passed).toBe(true)
    expect(report.checks.at(-1)!.id).toBe("latency")
  })

  it("fails retry and concurrent-duplicates when the handler acts on every delivery", async () => {
    const platformKey = await Testing.generatePlatformKey()
    const verifier = await createCallbackVerifier(
      Testing.verifierOptions({ appKey, platformPublicKeyPem: platformKey.publicKeyPem })
    )
    let acted = 0
    const report = await Testing.auditHandler(
      (request) =>
        verifier.handleCallbackRequest(request, () => {
          acted += 1
        }),
      { appKey, platformKey, actedOn: () => acted }
    )
    expect(failed(report)).toEqual(expect.arrayContaining(["retry", "concurrent-duplicates"]))
  })

  it("fails valid-escaped-body for a handler that verifies a re-serialised body", async () => {
    const platformKey = await Testing.generatePlatformKey()
    const key = createPublicKey(platformKey.publicKeyPem)
    const report = await Testing.auditHandler(
      async (request) => {
        const parsed: unknown = await request.json()
        const body = JSON.stringify(parsed)
        const ts = request.headers.get("x-r-ts") ?? ""
        const signature = request.headers.get("x-r-signature") ?? ""
        if (request.headers.get("x-r-key-version") !== "1" || Math.abs(Date.now() - Number(ts)) > 300_000)
          return new Response(null, { status: 401 })
        const ok = verify("sha256", Buffer.from(`${appKey}.${ts}.${body}`), key, Buffer.from(signature, "base64"))
        return new Response(null, { status: ok ? 200 : 401 })
      },
      { appKey, platformKey }
    )
    expect(failed(report)).toContain("valid-escaped-body")
    expect(report.checks.find((c) => c.id === "valid-escaped-body")!.detail).toContain("re-serialised")
  })

  it("reports a handler that throws as no answer, never rejecting", async () => {
    const platformKey = await Testing.generatePlatformKey()
    const report = await Testing.auditHandler(
      () => {
        throw new Error("boom")
      },
      { appKey, platformKey }
    )
    expect(report.checks[0]!.detail).toContain("the handler threw: boom")
    expect(report.passed).toBe(false)
  })

  it("the README's audit example runs as written and prints passed", async () => {
    const packageDir = new URL("..", import.meta.url).pathname
    const readme = readFileSync(`${packageDir}README.md`, "utf8")
    const code = /<!-- audit-example: client -->\s*```ts\n([\s\S]*?)```/.exec(readme)![1]!
    // In the package folder, so that "@pc/client/testing" resolves through its real exports (dist).
    const file = `${packageDir}.readme-audit-${process.pid}.ts`
    writeFileSync(file, code)
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", file], {
        cwd: packageDir,
        timeout: 60_000
      })
      expect(stdout.trim().split("\n").at(-1)).toBe("passed")
    } finally {
      rmSync(file, { force: true })
    }
  }, 90_000)
})
