// A merchant's own project, for real: every public package packed, installed with npm into an
// `npm init -y` project outside the workspace, and used exactly as the READMEs say: `npx pc`, the
// mock README's vitest recipe (`startMock()` as a globalSetup), the client's README examples as
// pasted, `require` from CommonJS, type-checking under NodeNext and Bundler, and each package alone
// with its README's install line. One npm cache for the run; every process killed at the end.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import {
  accepting,
  background,
  blocksOf,
  freePort,
  killAll,
  markedBlocks,
  npmInstallNames,
  type Running,
  until
} from "@pc/test-support"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  env,
  internalClosure,
  newProject,
  npmInstall,
  ok,
  packAll,
  readReadme,
  removeAll,
  run,
  write
} from "./support/Project.js"

let tarballs: ReadonlyMap<string, string>
let project: string

/** The block after `<!-- example: name -->` in a README. */
const readmeExample = (readme: string, name: string): string => {
  const found = blocksOf(readme, "example").find((block) => block.name === name)
  if (found === undefined) throw new Error(`no example "${name}"`)
  return found.code
}

/** `npx pc mock` in `dir` on a free port, resolved once it prints its ready line. */
const startPcMock = async (dir: string, args: ReadonlyArray<string>) => {
  const port = await freePort()
  const mock = background("npx", ["pc", "mock", "--port", String(port), "--db", ":memory:", ...args], {
    cwd: dir,
    env: env()
  })
  const [, url] = await mock.waitForOutput(/listening on (http:\/\/\S+)/, "pc mock's ready line")
  return { ...mock, port, url: url! }
}

/**
 * One sandbox `npx pc mock` for the README examples (each creates its own order and sets the notify
 * URL it listens on, one after the other), started when the first needs it, killed with the rest.
 */
let sandbox: Promise<Running & { readonly url: string }> | undefined
const sandboxMock = () => {
  sandbox ??= startPcMock(project, [])
  return sandbox
}

/** The environment the client README's examples read, for a mock at `url`. */
const exampleEnv = async (dir: string, url: string) => {
  const keys = (await (await fetch(`${url}/dev/platform-keys`)).json()) as { data: Array<{ publicKeyPem: string }> }
  return {
    PC_BASE_URL: url,
    PC_PRIVATE_KEY: readFileSync(
      join(dir, "node_modules/@pc/mock-server/test-merchant/TEST-ONLY-private-key.pem"),
      "utf8"
    ),
    PC_PLATFORM_KEY: keys.data[0]!.publicKeyPem,
    PORT: String(await freePort())
  }
}

/** A new project with only a README's install line, the @pc names served from their tarballs. */
const alone = async (readmePath: string) => {
  const readme = readReadme(readmePath)
  const names = npmInstallNames(readme)
  const internal = internalClosure(
    tarballs,
    names.filter((name) => name.startsWith("@pc/"))
  )
  const dir = await newProject(names[0]!.replace(/\W+/g, "-"))
  await npmInstall(dir, [...internal.map((name) => tarballs.get(name)!), ...names.filter((n) => !n.startsWith("@pc/"))])
  return { dir, readme }
}

const ALONE = [
  "packages/core/README.md",
  "packages/crypto-node/README.md",
  "packages/crypto-web/README.md",
  "packages/client/README.md",
  "apps/mock-server/README.md",
  "apps/cli/README.md"
] as const
/** Each package's own project, installed while the main project's checks run (npm's cache is shared and safe). */
let aloneProjects: Map<(typeof ALONE)[number], Promise<{ dir: string; readme: string }>>

afterAll(async () => {
  // Every process a test started, also when an assertion failed before it stopped its own.
  killAll()
  await removeAll()
})

/** Prints how long a step took (the test's own record of where its time goes). */
const timed = async <A>(what: string, step: () => Promise<A>): Promise<A> => {
  const started = Date.now()
  const result = await step()
  console.log(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return result
}

beforeAll(async () => {
  tarballs = await timed("pack every public package", packAll)
  expect([...tarballs.keys()].sort()).toEqual([
    "@pc/cli",
    "@pc/client",
    "@pc/core",
    "@pc/crypto-node",
    "@pc/crypto-web",
    "@pc/mock-server"
  ])
  aloneProjects = new Map(ALONE.map((readme) => [readme, alone(readme)]))
  // Awaited by their tests; a failure is reported there, not as an unhandled rejection here.
  for (const installing of aloneProjects.values()) installing.catch(() => {})
  project = await newProject("main")
  await timed("npm i of the main project (the six packs, effect, vitest, tsx, typescript)", () =>
    npmInstall(project, [
      ...tarballs.values(),
      "effect@^3.22.4",
      "@effect/platform@^0.97.2",
      "vitest@~3.2.7",
      "tsx@^4.20.0",
      "typescript@~5.9.3",
      "@types/node@^20.19.0"
    ])
  )
})

describe("a merchant's project with every package installed from its tarball", () => {
  it("npx pc --help", async () => {
    const help = await ok("npx", ["pc", "--help"], project)
    expect(help.stdout).toContain("mock")
    expect(help.stdout).toMatch(/pc \d+\.\d+\.\d+/)
  })

  it("npx pc mock --env production serves /healthz and stops on SIGTERM", async () => {
    const mock = await startPcMock(project, ["--env", "production"])
    try {
      const health = (await (await fetch(`${mock.url}/healthz`)).json()) as {
        code: string
        data: { environment: string }
      }
      expect(health).toMatchObject({ code: "SUCCESS", data: { environment: "production" } })
      // SIGTERM to npx alone (not its group): the mock behind it must notice and close its port.
      mock.child.kill("SIGTERM")
      await until(async () => ((await accepting(mock.port)) ? undefined : true), "the port did not close", {
        timeoutMs: 60_000
      })
      await mock.exited
    } finally {
      mock.kill("SIGKILL")
    }
  })

  it("npx pc callbacks audit: a correct endpoint passes (exit 0), one that verifies nothing fails (exit 1)", async () => {
    const mock = await startPcMock(project, ["--env", "production"])
    // The merchant's endpoint, written with the Promise facade on plain node:http.
    write(
      project,
      "audit-endpoint.mjs",
      `import { createServer } from "node:http"
import { createCallbackVerifier } from "@pc/client/promise"

const keys = (await (await fetch(process.env.PC_BASE_URL + "/dev/platform-keys")).json()).data
const verifier = await createCallbackVerifier({
  environment: "production",
  appKey: process.env.PC_APP_KEY,
  platformKeys: { production: Object.fromEntries(keys.map((k) => [k.version, k.publicKeyPem])) }
})
const stored = new Set()
createServer(async (req, res) => {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  if (process.env.LAX === "1") return res.writeHead(200).end()
  const request = new Request("http://localhost" + req.url, { method: "POST", headers: req.headers, body: Buffer.concat(chunks) })
  const response = await verifier.handleCallbackRequest(request, (event) => void stored.add(event.eventId))
  res.writeHead(response.status).end(Buffer.from(await response.arrayBuffer()))
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening"))
`
    )
    const appKey = "7e57c0de-0000-4000-8000-000000000001"
    const endpoints: Array<Running> = []
    try {
      const endpointUrl = async (lax: boolean) => {
        const port = await freePort()
        const endpoint = background("node", ["audit-endpoint.mjs"], {
          cwd: project,
          env: env({ PC_BASE_URL: mock.url, PC_APP_KEY: appKey, PORT: String(port), LAX: lax ? "1" : "0" })
        })
        endpoints.push(endpoint)
        await endpoint.waitForOutput(/listening/, "the endpoint's ready line")
        return `http://127.0.0.1:${port}/callbacks`
      }
      const pcEnv = { env: { PC_BASE_URL: mock.url, PC_APP_KEY: appKey }, timeoutMs: 90_000 }
      const passed = await run("npx", ["pc", "callbacks", "audit", await endpointUrl(false)], project, pcEnv)
      expect(passed.code, passed.stdout + passed.stderr).toBe(0)
      expect(passed.stdout).toMatch(/^passed: 19 pass, 0 warn, 0 fail/m)
      const failed = await run("npx", ["pc", "callbacks", "audit", await endpointUrl(true), "--json"], project, pcEnv)
      expect(failed.code).toBe(1)
      const report = JSON.parse(failed.stdout) as { passed: boolean; checks: Array<{ id: string; verdict: string }> }
      expect(report.passed).toBe(false)
      expect(report.checks.find((c) => c.id === "tampered-body")?.verdict).toBe("fail")
    } finally {
      for (const endpoint of endpoints) endpoint.kill("SIGKILL")
      mock.kill("SIGKILL")
    }
  }, 180_000)

  it("the mock README's vitest recipe (globalSetup): a test creates an order with the Promise facade and verifies its order.paid", async () => {
    const recipes = blocksOf(readReadme("apps/mock-server/README.md"), "recipe").filter(({ name }) =>
      name.startsWith("vitest-")
    )
    expect(recipes.map(({ name }) => name)).toEqual(["vitest-config", "vitest-setup"])
    // Each block's first line names its file: `// test/mock.global.ts`.
    for (const { code } of recipes) write(project, /^\/\/ ([\w./-]+)/.exec(code)![1]!, code)
    write(
      project,
      "test/order.test.ts",
      `import { createPaymentClient } from "@pc/client/promise"
import { createServer } from "node:http"
import { expect, inject, it } from "vitest"

it("creates an order and receives its verified order.paid", async () => {
  const url = inject("mockUrl")
  const { appKey, keyVersion, privateKeyPem } = inject("testMerchant")
  const keys = await (await fetch(url + "/dev/platform-keys")).json()
  const client = await createPaymentClient({
    environment: "sandbox", baseUrl: url, appKey,
    privateKeys: { [keyVersion]: privateKeyPem },
    callbacks: { platformKeys: { sandbox: { 1: keys.data[0].publicKeyPem } } }
  })
  let paid: (event: unknown) => void = () => {}
  const received = new Promise((resolve) => { paid = resolve })
  const server = createServer(client.nodeCallbackHandler(async (event) => paid(event)))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const notifyUrl = "http://127.0.0.1:" + (server.address() as { port: number }).port + "/callbacks"
  await fetch(url + "/dev/merchants/" + appKey + "/notify-url", {
    method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ notifyUrl })
  })
  const order = await client.createOrder({ orderId: "consumer-" + Date.now(), amount: "12.34", currency: "USD" })
  await fetch(url + "/dev/orders/" + order.orderSn + "/pay", { method: "POST" })
  const event = await received
  server.close()
  expect(event).toMatchObject({ eventType: "order.paid", orderSn: order.orderSn, amount: "12.34", currency: "USD" })
})
`
    )
    const vitest = await run("npx", ["vitest", "run", "test/order.test.ts"], project, { timeoutMs: 180_000 })
    expect(vitest.stdout + vitest.stderr).toMatch(/1 passed/)
    expect(vitest.code).toBe(0)
  })

  it.each(["effect", "promise"])(
    "the client README's %s example runs as pasted (example.mts, npx tsx)",
    async (name) => {
      const mock = await sandboxMock()
      write(project, `example-${name}.mts`, readmeExample(readReadme("packages/client/README.md"), name))
      const example = await run("npx", ["tsx", `example-${name}.mts`], project, {
        env: await exampleEnv(project, mock.url),
        timeoutMs: 120_000
      })
      expect(example.stdout + example.stderr).toMatch(/callback verified:? .*order\.paid/)
      expect(example.code).toBe(0)
    }
  )

  it("CommonJS requires @pc/client/promise (Node 20.19+ loads ES modules with require)", async () => {
    write(
      project,
      "require.cjs",
      `const { createPaymentClient, SignatureRejectedError } = require("@pc/client/promise")
console.log(typeof createPaymentClient, typeof SignatureRejectedError)
`
    )
    const required = await ok("node", ["require.cjs"], project)
    expect(required.stdout.trim()).toBe("function function")
  })

  it("TypeScript type-checks the public entries under NodeNext and under Bundler (module ESNext)", async () => {
    write(
      project,
      "types.ts",
      `import { PaymentClient } from "@pc/client"
import { createPaymentClient, type PaymentClientOptions } from "@pc/client/promise"
import { Canonical } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { NodeCrypto } from "@pc/crypto-node"
import { WebCrypto } from "@pc/crypto-web"
import { type RunningMock, startMock } from "@pc/mock-server"

export const mock: Promise<RunningMock> = startMock({ environment: "gray" })
export const path: string = Wire.CREATE_ORDER_PATH
export const text: string = Canonical.requestStringToSign({ method: "POST", path, appKey: "a", timestamp: 1, body: "{}" })
export const options: Pick<PaymentClientOptions, "environment"> = { environment: "sandbox" }
export const made = [createPaymentClient, PaymentClient.layer, NodeCrypto.importPrivateKey, WebCrypto.importPublicKey]
`
    )
    // Two independent tsc runs, side by side: each is one single-threaded process.
    const check = async (module: string, resolution: string) => {
      write(
        project,
        `tsconfig.${resolution}.json`,
        JSON.stringify({
          compilerOptions: {
            module,
            moduleResolution: resolution,
            target: "ES2022",
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: ["node"]
          },
          files: ["types.ts"]
        })
      )
      return run("npx", ["tsc", "-p", `tsconfig.${resolution}.json`], project, { timeoutMs: 240_000 })
    }
    const [nodeNext, bundler] = await Promise.all([check("NodeNext", "NodeNext"), check("ESNext", "Bundler")])
    // tsc reports type errors on stdout (stderr may carry npm's own warnings about its config).
    expect(nodeNext.stdout).toBe("")
    expect(nodeNext.code).toBe(0)
    expect(bundler.stdout).toBe("")
    expect(bundler.code).toBe(0)
  })
})

describe("the client README's TypeScript against the packed packages", () => {
  it("tsc --strict --exactOptionalPropertyTypes accepts every block but the framework recipes and the replay guards' drivers", async () => {
    // The recipes need the frameworks (tooling/runtimes checks them), the replay guards their
    // database drivers (packages/client's Readme tests check them); the rest needs only what the
    // main project installed from the tarballs.
    const blocks = markedBlocks(readReadme("packages/client/README.md")).filter(
      (block) => block.lang === "ts" && !/^(recipe|replay-example):/.test(block.marker)
    )
    expect(blocks.length).toBeGreaterThanOrEqual(10)
    const files = blocks.map((block, index) => {
      write(project, `readme-block-${index}.mts`, block.code)
      return `readme-block-${index}.mts`
    })
    write(
      project,
      "tsconfig.readme.json",
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"]
        },
        files
      })
    )
    const tsc = await run("npx", ["tsc", "-p", "tsconfig.readme.json"], project, { timeoutMs: 240_000 })
    expect(tsc.stdout).toBe("")
    expect(tsc.code).toBe(0)
  })
})

describe("each package alone, with only its README's install line", () => {
  it("@pc/core: its example runs without effect installed", async () => {
    const { dir, readme } = await aloneProjects.get("packages/core/README.md")!
    write(dir, "example.mts", readmeExample(readme, "core"))
    const example = await ok("npx", ["-y", "tsx@^4.20.0", "example.mts"], dir)
    expect(example.stdout).toContain("POST /openapi/v2/order/create")
  })

  it("@pc/crypto-node: its example signs and verifies, and signs the same off the event loop", async () => {
    const { dir, readme } = await aloneProjects.get("packages/crypto-node/README.md")!
    write(dir, "example.mts", readmeExample(readme, "sign"))
    const example = await ok("npx", ["-y", "tsx@^4.20.0", "example.mts"], dir)
    const [verified, offThreadSame] = example.stdout.trim().split("\n")
    expect(verified).toMatch(/^[A-Za-z0-9+/]{342}== true$/)
    expect(offThreadSame).toBe("true")
  })

  it("@pc/crypto-web: its example loads and defines the callback endpoint", async () => {
    const { dir, readme } = await aloneProjects.get("packages/crypto-web/README.md")!
    write(dir, "example.mts", `${readmeExample(readme, "callback")}\nconsole.log(typeof handleCallback)\n`)
    // The example reads the platform key and the appKey from the environment: any RSA public key will do.
    const example = await ok("npx", ["-y", "tsx@^4.20.0", "example.mts"], dir, {
      env: {
        PC_PLATFORM_KEY: readFileSync(
          join(project, "node_modules/@pc/mock-server/test-merchant/TEST-ONLY-public-key.pem"),
          "utf8"
        ),
        PC_APP_KEY: "7e57c0de-0000-4000-8000-000000000001"
      }
    })
    expect(example.stdout.trim()).toBe("function")
  })

  it("@pc/client: its Promise example reaches a verified order.paid", async () => {
    const { dir, readme } = await aloneProjects.get("packages/client/README.md")!
    const mock = await sandboxMock()
    write(dir, "example.mts", readmeExample(readme, "promise"))
    const example = await run("npx", ["-y", "tsx@^4.20.0", "example.mts"], dir, {
      env: await exampleEnv(project, mock.url),
      timeoutMs: 120_000
    })
    expect(example.stdout + example.stderr).toMatch(/callback verified:? order\.paid/)
    expect(example.code).toBe(0)
  })

  it("@pc/mock-server: its startMock example runs with node", async () => {
    const { dir, readme } = await aloneProjects.get("apps/mock-server/README.md")!
    write(dir, "mock-example.mjs", readmeExample(readme, "start-mock"))
    const example = await ok("node", ["mock-example.mjs"], dir)
    expect(example.stdout.trim()).toBe("SUCCESS production 7e57c0de-0000-4000-8000-000000000001 1")
  })

  it("@pc/cli: npx pc --help", async () => {
    const { dir } = await aloneProjects.get("apps/cli/README.md")!
    const help = await ok("npx", ["pc", "--help"], dir)
    expect(help.stdout).toContain("mock")
  })
})
