// The callback recipes of the client README (`<!-- recipe: name -->` blocks), run as they are: each
// is written to a file here (where the frameworks are installed), type-checked, started with tsx in
// a child process, and sent real callbacks by the mock; a re-serialised body must be refused with
// the hint, and the classic Express mistake must fail naming its fix.
import { spawn } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { blocksOf } from "@pc/test-support"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Program, startProgram } from "../src/Process.js"
import {
  captureCallback,
  freePort,
  type MockMerchant,
  payOrderTo,
  platformKeyPems,
  resend,
  reserialised,
  startMockMerchant,
  TEST_MERCHANT_APP_KEY
} from "./support/RealCallbacks.js"

const packageDir = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(join(packageDir, "../../packages/client/README.md"), "utf8")
const recipes = new Map(blocksOf(readme, "recipe").map(({ name, code }) => [name, code]))
// Inside this package, so that the recipes' imports resolve to its devDependencies.
const dir = join(packageDir, `.recipes-${process.pid}`)
const require = createRequire(import.meta.url)

// The Next.js route handler is served the way Next calls it: a standard Request in, a Response out.
const NEXT_HOST = `import { serve } from "@hono/node-server"
import { POST } from "./nextjs.js"

serve({ port: Number(process.env.PORT), fetch: (request) => request.method === "POST" ? POST(request) : new Response(null, { status: 405 }) })
`

/** Starts a recipe file with tsx on a free port; resolves once it answers HTTP. */
const start = async (file: string, env: Record<string, string>): Promise<Program & { readonly url: string }> => {
  const port = await freePort()
  const program = startProgram(process.execPath, ["--import", "tsx", join(dir, file)], {
    cwd: dir,
    env: { ...process.env, ...env, PORT: String(port) }
  })
  const url = `http://127.0.0.1:${port}`
  // A cap, not a speed bound: tsx compiling a framework recipe took over 20 s at a load of 20 on 2 cores.
  const deadline = Date.now() + 90_000
  // Listening once any request gets an answer; a recipe that exits or hangs first fails with its output.
  for (;;) {
    if (program.child.exitCode !== null || Date.now() > deadline) {
      await program.stop()
      throw new Error(`${file} did not start listening (exit ${program.child.exitCode}):\n${program.output()}`)
    }
    const answered = await fetch(url, { method: "GET" }).then(
      () => true,
      () => false
    )
    if (answered) return { ...program, url }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

let merchant: MockMerchant
let env: Record<string, string>

beforeAll(async () => {
  mkdirSync(dir, { recursive: true })
  for (const [name, code] of recipes) writeFileSync(join(dir, `${name}.ts`), `${code}\n`)
  writeFileSync(join(dir, "next-host.ts"), NEXT_HOST)
  merchant = await startMockMerchant()
  env = { PC_APP_KEY: TEST_MERCHANT_APP_KEY, PC_PLATFORM_KEY: (await platformKeyPems(merchant.mock))[1]! }
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await merchant?.close()
})

describe("client README callback recipes", () => {
  it("are the verifier, Express (right, wrong and raw-body), Fastify, Hono and Next.js, each under 25 lines", () => {
    expect([...recipes.keys()]).toEqual([
      "verifier",
      "express",
      "express-json-first",
      "express-raw-body",
      "fastify",
      "hono",
      "nextjs"
    ])
    for (const code of recipes.values()) expect(code.split("\n").length).toBeLessThan(25)
  })

  it("answer every refusal with answerFor(error), the statuses the ready-made handlers send", () => {
    for (const [name, code] of recipes) {
      if (name === "verifier") continue
      expect(code, name).toContain('import { answerFor } from "@pc/client/promise"')
      expect(code, name).toMatch(/const answer = answerFor\(error\)/)
      expect(code, name).not.toMatch(/nodeCallbackHandler|handleCallbackRequest/)
    }
  })

  it("type-check under the repository's strict settings", async () => {
    const tsconfig = join(dir, "tsconfig.json")
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: join(packageDir, "tsconfig.json"),
        include: ["*.ts"],
        compilerOptions: { noEmit: true }
      })
    )
    const child = spawn(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", tsconfig], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
    })
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
    expect(code, output).toBe(0)
  }, 60_000)

  const verifying = [
    { name: "Express, express.raw() on the route", file: "express.ts" },
    { name: "Express, express.json({ verify }) keeping req.rawBody", file: "express-raw-body.ts" },
    { name: "Fastify, a buffer content-type parser", file: "fastify.ts" },
    { name: "Hono, c.req.raw", file: "hono.ts" },
    { name: "Next.js app-router route handler", file: "next-host.ts" }
  ]

  it.each(verifying)(
    "$name: verifies a real callback (200) and refuses it re-serialised with the hint",
    async ({ file }) => {
      const recipe = await start(file, env)
      try {
        const { outerOrder, delivery } = await payOrderTo(merchant, `${recipe.url}/callbacks`)
        expect(
          delivery.attempts.map((a) => a.httpStatus),
          recipe.output()
        ).toEqual([200])
        expect(recipe.output()).toContain(`callback verified: order.paid ${outerOrder}`)

        // Another real callback, kept as it arrived (and fresh, well inside the 5 minute window).
        const captured = await captureCallback(merchant)
        const refused = await resend(`${recipe.url}/callbacks`, captured, reserialised(captured.body))
        expect(refused.status).toBe(401)
        expect(((await refused.json()) as { code: string }).code).toBe("signError")
        await expect.poll(() => recipe.output()).toContain("did you pass the raw body?")

        // The refusal was the re-serialisation: the bytes as sent verify.
        expect((await resend(`${recipe.url}/callbacks`, captured)).status).toBe(200)
      } finally {
        await recipe.stop()
      }
    },
    150_000
  )

  it("Express with express.json() first: answers 500 and logs the fix, never a verified event", async () => {
    const recipe = await start("express-json-first.ts", env)
    try {
      const { delivery } = await payOrderTo(merchant, `${recipe.url}/callbacks`)
      expect(delivery.attempts[0]?.httpStatus, recipe.output()).toBe(500)
      expect(delivery.status).not.toBe("delivered")
      const captured = await captureCallback(merchant)
      for (const body of [captured.body, reserialised(captured.body)]) {
        const answer = await resend(`${recipe.url}/callbacks`, captured, body)
        expect(answer.status).toBe(500)
        expect(await answer.json()).toEqual({
          code: "internalError",
          msg: "callback receiver failed: BodyAlreadyParsed",
          data: null
        })
      }
      // The log escapes the quotes of the fix; the words are what a reader follows.
      await expect
        .poll(() => recipe.output())
        .toContain("express.json() or another JSON body parser ran before this handler")
      expect(recipe.output()).toMatch(
        /mount express\.raw\(\{ type: \\?"application\/json\\?" \}\) on the callback route/
      )
      expect(recipe.output()).not.toContain("never reached")
    } finally {
      await recipe.stop()
    }
  }, 150_000)
})
