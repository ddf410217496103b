// Every library README's example runs as written: it is copied next to its package (so the package
// imports resolve through its real exports and dist, as a reader's install would) and run with tsx.
import { Canonical, Headers } from "@pc/core"
import { keyOf } from "@pc/crypto-conformance"
import { NodeCrypto } from "@pc/crypto-node"
import { execFile } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

const run = promisify(execFile)
const root = new URL("../../../", import.meta.url).pathname

/** The ```ts block that follows `<!-- example: name -->` in a package's README. */
const example = (pkg: string, name: string): string => {
  const readme = readFileSync(`${root}packages/${pkg}/README.md`, "utf8")
  const match = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(readme)
  if (match === null) throw new Error(`packages/${pkg}/README.md has no example "${name}"`)
  return match[1]!
}

/** Writes `code` into the package folder under a temporary name, runs it with tsx, and removes it. */
const runInPackage = async (pkg: string, file: string, code: string, env: Record<string, string> = {}) => {
  const path = `${root}packages/${pkg}/${file}`
  writeFileSync(path, code)
  try {
    return await run(process.execPath, ["--import", "tsx", path], {
      cwd: `${root}packages/${pkg}`,
      env: { ...process.env, ...env },
      timeout: 60_000
    })
  } finally {
    rmSync(path, { force: true })
  }
}

describe("README examples run as written", () => {
  it("@pc/core: builds the string to sign, parses headers, checks the window", async () => {
    const { stdout } = await runInPackage("core", ".readme-example-core.ts", example("core", "core"))
    expect(stdout).toContain("POST /openapi/v2/order/create\n7e57c0de-0000-4000-8000-000000000001.")
    expect(stdout).toContain('{"orderId":"M-1001","amount":"10.50","currency":"USD"}')
    expect(stdout).toContain("missing header X-R-TS")
    expect(stdout.trim().endsWith("false")).toBe(true)
  })

  it("@pc/crypto-node: generates a pair, signs and verifies, and signs the same off the event loop", async () => {
    const { stdout } = await runInPackage("crypto-node", ".readme-example-sign.ts", example("crypto-node", "sign"))
    const [first, offThreadSame] = stdout.trim().split("\n")
    const [signature, verdict] = first!.split(" ")
    expect(signature).toMatch(/^[A-Za-z0-9+/]{342}==$/)
    expect(verdict).toBe("true")
    expect(offThreadSame).toBe("true")
  })

  it("@pc/crypto-web: the callback endpoint accepts a signed callback and refuses a tampered or stale one", async () => {
    const platform = keyOf("platform-production-v1")
    const appKey = "7e57c0de-0000-4000-8000-000000000001"
    const signer = await NodeCrypto.importPrivateKey(platform.privatePkcs8Pem)
    const callback = async (body: string, timestamp: number) => ({
      body,
      headers: {
        "content-type": "application/json",
        [Headers.CallbackHeaders.timestamp]: String(timestamp),
        [Headers.CallbackHeaders.keyVersion]: "1",
        [Headers.CallbackHeaders.signature]: await signer.sign(
          Canonical.callbackStringToSign({ appKey, timestamp, body })
        )
      }
    })
    const body = '{"eventId":"evt_1","eventType":"order.paid","orderSn":"PC1","outerOrder":"订单-1"}'
    const fresh = await callback(body, Date.now())
    const stale = await callback(body, Date.now() - 6 * 60 * 1000)
    // A harness imports the example's handler and calls it with real Requests.
    const harness = `${example("crypto-web", "callback")}
const send = (c: { body: string; headers: Record<string, string> }) =>
  handleCallback(new Request("http://merchant.test/callbacks", { method: "POST", headers: c.headers, body: c.body }))
const statuses = [
  (await send(${JSON.stringify(fresh)})).status,
  (await send({ ...${JSON.stringify(fresh)}, body: ${JSON.stringify(body.replace("PC1", "PC2"))} })).status,
  (await send(${JSON.stringify(stale)})).status,
  (await send({ ...${JSON.stringify(fresh)}, headers: { ...${JSON.stringify(fresh.headers)}, "x-r-key-version": "2" } })).status
]
console.log("statuses", statuses.join(","))
`
    const { stdout } = await runInPackage("crypto-web", ".readme-example-callback.ts", harness, {
      PC_PLATFORM_KEY: platform.publicSpkiPem,
      PC_APP_KEY: appKey
    })
    expect(stdout).toContain("verified order.paid")
    expect(stdout).toContain("statuses 200,401,401,401")
  })
})
