// The README's examples run as they are: each block marked `<!-- example: name -->` is written to a
// file inside this package, run with tsx in a child process against a real mock (sandbox, the
// environment `pnpm mock` starts), and must print the order's checkout URL and the verified callback,
// then exit by itself.
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { blocksOf, type Finished, freePort, markedBlocks, run as runCommand } from "@pc/test-support"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  devData,
  type Mock,
  type OrderView,
  platformKeyPems,
  startMock,
  TEST_MERCHANT_APP_KEY,
  testMerchantPrivateKeyPem,
  waitForDelivery
} from "@pc/test-support/mock"

const packageDir = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(join(packageDir, "README.md"), "utf8")

const examples = blocksOf(readme, "example")

const require = createRequire(import.meta.url)

const exampleFile = (name: string) => join(packageDir, `.readme-example-${name}.ts`)

// The examples import "@pc/client", "@pc/client/node" and "@pc/client/promise" as users do. tsc and tsx map them to
// this package's sources, so that the test checks the code under test rather than a possibly stale
// dist/ (the exports map that serves them from dist/ is what `pnpm check-package` checks).
const tsconfig = join(tmpdir(), `pc-client-readme-${process.pid}.tsconfig.json`)

// timeoutMs is a cap for a hung child, not a speed bound: at a load of 20 on 2 cores tsc took over 50 s
// and an example over 25 s before printing anything. An example that does not end by itself is a
// failure: killed, and reported with its output.
const run = (args: ReadonlyArray<string>, env: Record<string, string>, timeoutMs: number): Promise<Finished> =>
  runCommand(process.execPath, args, { cwd: packageDir, env: { ...process.env, ...env }, timeoutMs })

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

describe("README examples", () => {
  let mock: Mock
  let platformKey: string

  beforeAll(async () => {
    mock = await startMock({ environment: "sandbox" })
    platformKey = (await platformKeyPems(mock))[1]!
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: join(packageDir, "tsconfig.json"),
        include: examples.map((e) => exampleFile(e.name)),
        compilerOptions: {
          noEmit: true,
          // From its temporary folder, the config finds @types/node where this package does.
          typeRoots: [dirname(dirname(require.resolve("@types/node/package.json")))],
          paths: {
            "@pc/client": [join(packageDir, "src/index.ts")],
            "@pc/client/node": [join(packageDir, "src/node.ts")],
            // Node resolves the facade through its `node` export condition.
            "@pc/client/promise": [join(packageDir, "src/PromiseNode.ts")]
          }
        }
      })
    )
  })
  afterAll(async () => {
    rmSync(tsconfig, { force: true })
    await mock?.close()
  })

  it("are exactly the effect and promise blocks, each under 30 lines", () => {
    expect(examples.map((e) => e.name)).toEqual(["effect", "promise"])
    for (const { code } of examples) {
      expect(code.trimEnd().split("\n").length).toBeLessThan(30)
      expect(code).toContain('process.env.PC_BASE_URL ?? "http://127.0.0.1:4010"')
      expect(code).toContain(TEST_MERCHANT_APP_KEY)
    }
  })

  it("type-check under the package's strict settings", async () => {
    try {
      for (const { name, code } of examples) writeFileSync(exampleFile(name), code)
      const tsc = require.resolve("typescript/bin/tsc")
      const result = await run([tsc, "-p", tsconfig], {}, 240_000)
      expect(result.code, `${result.stdout}${result.stderr}`).toBe(0)
    } finally {
      for (const { name } of examples) rmSync(exampleFile(name), { force: true })
    }
  }, 300_000)

  it.each(examples)(
    "$name: creates an order on the mock, prints its h5Url, verifies the order.paid callback and exits",
    async ({ name, code }) => {
      const file = exampleFile(name)
      writeFileSync(file, code)
      let result: Finished
      try {
        result = await run(
          ["--import", "tsx", file],
          {
            PC_BASE_URL: mock.url,
            PC_PRIVATE_KEY: testMerchantPrivateKeyPem(),
            PC_PLATFORM_KEY: platformKey,
            PORT: String(await freePort()),
            TSX_TSCONFIG_PATH: tsconfig
          },
          120_000
        )
      } finally {
        rmSync(file, { force: true })
      }
      const output = `exit ${result.code ?? result.signal}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`
      expect(result.code, output).toBe(0)

      const h5Url = new RegExp(`pay at (${escapeRegExp(mock.url)}/h5/checkout/([A-Za-z0-9_-]+))`).exec(result.stdout)
      expect(h5Url, output).not.toBeNull()
      const orderSn = h5Url![2]!
      const order = await devData<OrderView>(mock, "GET", `/dev/orders/${orderSn}`)
      expect(order).toMatchObject({ orderSn, amount: "10.00", currency: "USD", status: "PAID" })
      expect(order.outerOrder).toMatch(/^M-\d+$/)

      // The event the example's handler printed is the one of this order, verified.
      expect(result.stdout, output).toMatch(new RegExp(`callback verified:? order\\.paid ${order.outerOrder} 10\\.00`))
      const delivery = await waitForDelivery(mock, orderSn, (d) => d.status === "delivered", "delivered")
      expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([200])
      // Sandbox would have said so had production refused the signature; the client logs that.
      expect(result.stdout).not.toMatch(/X-R-Signature-Check/)
    },
    150_000
  )
})

// Every other TypeScript block of the README, so that a stale snippet fails here: each is marked
// (`<!-- snippet: name -->`, or the marker of the test that runs it), all are type-checked in one
// tsc run under what the issue asks of a merchant's project (`--strict --exactOptionalPropertyTypes`,
// on top of this package's settings less the unused-name checks, since snippets are fragments that
// declare more than they use), and the snippets run with tsx against a real mock and exit by
// themselves. The framework recipes are type-checked and run in tooling/runtimes (Recipes.test.ts),
// where the frameworks are installed.
describe("README TypeScript blocks", () => {
  const tsBlocks = markedBlocks(readme).filter((block) => block.lang === "ts")
  const snippets = blocksOf(readme, "snippet").filter((block) => block.lang === "ts")
  // The snippets are checked under their own names below; the other marked blocks under their index.
  const checked = tsBlocks.filter(
    (block) => !block.marker.startsWith("recipe:") && !block.marker.startsWith("snippet:")
  )
  const blockFile = (index: number) => join(packageDir, `.readme-block-${index}.ts`)
  const snippetFile = (name: string) => join(packageDir, `.readme-snippet-${name}.ts`)
  const snippetsConfig = join(tmpdir(), `pc-client-readme-snippets-${process.pid}.tsconfig.json`)
  let mock: Mock
  let env: Record<string, string>

  beforeAll(async () => {
    mock = await startMock({ environment: "sandbox" })
    const pems = await platformKeyPems(mock)
    env = {
      PC_BASE_URL: mock.url,
      PC_APP_KEY: TEST_MERCHANT_APP_KEY,
      PC_PRIVATE_KEY: testMerchantPrivateKeyPem(),
      PC_PRIVATE_KEY_V1: testMerchantPrivateKeyPem(),
      PC_PLATFORM_KEY: pems[1]!,
      // Any two RSA public keys will do for a verifier that is only built.
      PC_PLATFORM_KEY_V1: pems[1]!,
      PC_PLATFORM_KEY_V2: Object.values(pems).at(-1)!,
      PORT: String(await freePort())
    }
    const source = (entry: string) => [join(packageDir, "src", entry)]
    writeFileSync(
      snippetsConfig,
      JSON.stringify({
        extends: join(packageDir, "tsconfig.json"),
        include: [...checked.map((_, index) => blockFile(index)), ...snippets.map((s) => snippetFile(s.name))],
        compilerOptions: {
          noEmit: true,
          strict: true,
          exactOptionalPropertyTypes: true,
          noUnusedLocals: false,
          noUnusedParameters: false,
          typeRoots: [dirname(dirname(require.resolve("@types/node/package.json")))],
          paths: {
            "@pc/client": source("index.ts"),
            "@pc/client/node": source("node.ts"),
            "@pc/client/promise": source("PromiseNode.ts"),
            "@pc/client/testing": source("Testing.ts"),
            "@pc/client/replay-sql": source("replay-sql.ts"),
            "@pc/client/replay-redis": source("replay-redis.ts")
          }
        }
      })
    )
    for (const [index, block] of checked.entries()) writeFileSync(blockFile(index), block.code)
    for (const { name, code } of snippets) writeFileSync(snippetFile(name), code)
  }, 60_000)
  afterAll(async () => {
    for (const index of checked.keys()) rmSync(blockFile(index), { force: true })
    for (const { name } of snippets) rmSync(snippetFile(name), { force: true })
    rmSync(snippetsConfig, { force: true })
    await mock?.close()
  })

  it("are all marked, so that none escapes a test", () => {
    const fences = readme.match(/^```ts$/gm) ?? []
    expect(tsBlocks.length).toBe(fences.length)
    expect(snippets.map((s) => s.name)).toEqual([
      "promise-import",
      "switch-on-code",
      "merchant-key-rotation",
      "platform-keys-static",
      "platform-keys-source",
      "first-checkout",
      "faults"
    ])
    // The recipes, the only blocks left to tooling/runtimes.
    expect(tsBlocks.length - checked.length - snippets.length).toBe(7)
  })

  it("type-check with tsc --strict --exactOptionalPropertyTypes (the package's settings besides)", async () => {
    const tsc = require.resolve("typescript/bin/tsc")
    const result = await run([tsc, "-p", snippetsConfig], {}, 240_000)
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(0)
  }, 300_000)

  it.each(snippets.map((s) => s.name))(
    "%s: runs with tsx against the mock and exits by itself",
    async (name) => {
      const result = await run(
        ["--import", "tsx", snippetFile(name)],
        { ...env, TSX_TSCONFIG_PATH: snippetsConfig },
        120_000
      )
      const output = `exit ${result.code ?? result.signal}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`
      expect(result.code, output).toBe(0)
      if (name === "first-checkout") {
        const orderSn = new RegExp(`pay at ${escapeRegExp(mock.url)}/h5/checkout/([A-Za-z0-9_-]+)`).exec(
          result.stdout
        )?.[1]
        expect(orderSn, output).toBeDefined()
        const order = await devData<OrderView>(mock, "GET", `/dev/orders/${orderSn}`)
        expect(order).toMatchObject({ amount: "10.00", currency: "USD", status: "CREATED" })
        expect(order.outerOrder).toMatch(/^shop-sandbox:2026:\d+$/)
      }
    },
    150_000
  )
})
