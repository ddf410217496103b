// The callback recipes of the client README, audited (CONTRACT.md "Callback endpoint audit"): each
// recipe, run as it is with tsx, gets the mock's whole battery; none may fail a check. Our own
// examples must be right.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type * as CallbackAudit from "@pc/core/CallbackAudit"
import { blocksOf } from "@pc/test-support"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Program, startProgram } from "../src/Process.js"
import {
  freePort,
  type MockMerchant,
  platformKeyPems,
  startMockMerchant,
  TEST_MERCHANT_APP_KEY
} from "./support/RealCallbacks.js"

const packageDir = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(join(packageDir, "../../packages/client/README.md"), "utf8")
const recipes = new Map(blocksOf(readme, "recipe").map(({ name, code }) => [name, code]))
const dir = join(packageDir, `.recipes-audit-${process.pid}`)

const NEXT_HOST = `import { serve } from "@hono/node-server"
import { POST } from "./nextjs.js"

serve({ port: Number(process.env.PORT), fetch: (request) => request.method === "POST" ? POST(request) : new Response(null, { status: 405 }) })
`

const start = async (file: string, env: Record<string, string>): Promise<Program & { readonly url: string }> => {
  const port = await freePort()
  const program = startProgram(process.execPath, ["--import", "tsx", join(dir, file)], {
    cwd: dir,
    env: { ...process.env, ...env, PORT: String(port) }
  })
  const url = `http://127.0.0.1:${port}`
  // A cap, not a speed bound: tsx compiling a framework recipe is slow on a loaded machine.
  const deadline = Date.now() + 90_000
  for (;;) {
    if (program.child.exitCode !== null || Date.now() > deadline) {
      await program.stop()
      throw new Error(`${file} did not start listening (exit ${program.child.exitCode}):\n${program.output()}`)
    }
    if (
      await fetch(url).then(
        () => true,
        () => false
      )
    )
      return { ...program, url }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

let merchant: MockMerchant
let env: Record<string, string>

beforeAll(async () => {
  mkdirSync(dir, { recursive: true })
  for (const [name, code] of recipes) writeFileSync(join(dir, `${name}.ts`), `${code}\n`)
  writeFileSync(join(dir, "next-host.ts"), NEXT_HOST)
  merchant = await startMockMerchant("production")
  env = { PC_APP_KEY: TEST_MERCHANT_APP_KEY, PC_PLATFORM_KEY: (await platformKeyPems(merchant.mock))[1]! }
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await merchant?.close()
})

describe("client README callback recipes pass the callback endpoint audit", () => {
  it.each([
    { name: "Express", file: "express.ts" },
    { name: "Express with req.rawBody", file: "express-raw-body.ts" },
    { name: "Fastify", file: "fastify.ts" },
    { name: "Hono", file: "hono.ts" },
    { name: "Next.js route handler", file: "next-host.ts" }
  ])(
    "$name: no check fails",
    async ({ file }) => {
      const recipe = await start(file, env)
      try {
        const answer = await fetch(`${merchant.mock.url}/dev/merchants/${TEST_MERCHANT_APP_KEY}/audit`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: `${recipe.url}/callbacks` })
        })
        const report = ((await answer.json()) as { data: CallbackAudit.AuditReport }).data
        const failed = report.checks.filter((c) => c.verdict === "fail")
        console.info(
          `${file}: ${report.checks.map((c) => `${c.id}=${c.verdict}${c.status === null ? "" : `(${c.status})`}`).join(" ")}`
        )
        expect(failed, recipe.output()).toEqual([])
      } finally {
        await recipe.stop()
      }
    },
    150_000
  )

  it("the express.json()-first mistake fails valid: the parser ran before the verifier", async () => {
    const recipe = await start("express-json-first.ts", env)
    try {
      const answer = await fetch(`${merchant.mock.url}/dev/merchants/${TEST_MERCHANT_APP_KEY}/audit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `${recipe.url}/callbacks` })
      })
      const report = ((await answer.json()) as { data: CallbackAudit.AuditReport }).data
      expect(report.passed).toBe(false)
      expect(report.checks.find((c) => c.id === "valid")).toMatchObject({ verdict: "fail", status: 500 })
    } finally {
      await recipe.stop()
    }
  }, 150_000)
})
