// A merchant's own project, for real: every public package packed, installed with npm into an
// `npm init -y` project outside the workspace, and used exactly as the READMEs say: `npx pc`,
// `startMock()` in a vitest suite, the client's README examples as pasted, `require` from CommonJS,
// type-checking under NodeNext and Bundler, and each package alone with its README's install line.
import { readFileSync } from "node:fs"
import { createConnection, createServer } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  background,
  installLine,
  internalClosure,
  newProject,
  npmInstall,
  ok,
  packAll,
  readmeExample,
  readReadme,
  removeAll,
  run,
  write
} from "./support/Project.js"

let tarballs: ReadonlyMap<string, string>
let project: string

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

const accepting = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const until = async <A>(probe: () => A | undefined | Promise<A | undefined>, what: string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** `npx pc mock` in `dir` on a free port, resolved once it prints its ready line. */
const startPcMock = async (dir: string, args: ReadonlyArray<string>) => {
  const port = await freePort()
  const mock = background("npx", ["pc", "mock", "--port", String(port), "--db", ":memory:", ...args], dir)
  const url = await until(() => {
    if (mock.child.exitCode !== null) throw new Error(`pc mock exited:\n${mock.output()}`)
    return /listening on (http:\/\/\S+)/.exec(mock.output())?.[1]
  }, "pc mock did not get ready")
  return { ...mock, port, url }
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

afterAll(removeAll)

beforeAll(async () => {
  tarballs = packAll()
  expect([...tarballs.keys()].sort()).toEqual([
    "@pc/cli",
    "@pc/client",
    "@pc/core",
    "@pc/crypto-node",
    "@pc/crypto-web",
    "@pc/mock-server"
  ])
  project = await newProject("main")
  await npmInstall(project, [
    ...tarballs.values(),
    "effect@^3.22.4",
    "@effect/platform@^0.97.2",
    "vitest@~3.2.7",
    "tsx@^4.20.0",
    "typescript@~5.9.3",
    "@types/node@^20.19.0"
  ])
})

describe("a merchant's project with every package installed from its tarball", () => {
  it("npx pc --help", async () => {
    const help = await ok("npx", ["pc", "--help"], project)
    expect(help.stdout).toContain("mock")
    expect(help.stdout).toMatch(/pc \d+\.\d+\.\d+/)
  })

  it("npx pc mock --env production serves /healthz and stops on SIGTERM", async () => {
    const mock = await startPcMock(project, ["--env", "production"])
    const health = (await (await fetch(`${mock.url}/healthz`)).json()) as {
      code: string
      data: { environment: string }
    }
    expect(health).toMatchObject({ code: "SUCCESS", data: { environment: "production" } })
    mock.child.kill("SIGTERM")
    await until(async () => ((await accepting(mock.port)) ? undefined : true), "the port did not close", 10_000)
    // npx itself ends by the signal (no exit code); the mock behind it closed its port above.
    await mock.exited
  })

  it("a vitest file creates an order with the Promise facade against startMock() and verifies its order.paid", async () => {
    write(
      project,
      "order.test.mjs",
      `import { createPaymentClient } from "@pc/client/promise"
import { startMock } from "@pc/mock-server"
import { createServer } from "node:http"
import { afterAll, beforeAll, expect, it } from "vitest"

let mock
beforeAll(async () => { mock = await startMock({ environment: "production" }) })
afterAll(() => mock.close())

it("creates an order and receives its verified order.paid", async () => {
  const keys = await (await fetch(mock.url + "/dev/platform-keys")).json()
  const { appKey, keyVersion, privateKeyPem } = mock.testMerchant
  const client = await createPaymentClient({
    environment: "production", baseUrl: mock.url, appKey,
    privateKeys: { [keyVersion]: privateKeyPem },
    callbacks: { platformKeys: { production: { 1: keys.data[0].publicKeyPem } } }
  })
  let paid
  const received = new Promise((resolve) => { paid = resolve })
  const server = createServer(client.nodeCallbackHandler(async (event) => paid(event)))
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const notifyUrl = "http://127.0.0.1:" + server.address().port + "/callbacks"
  await fetch(mock.url + "/dev/merchants/" + appKey + "/notify-url", {
    method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ notifyUrl })
  })
  const order = await client.createOrder({ orderId: "consumer-" + Date.now(), amount: "12.34", currency: "USD" })
  await fetch(mock.url + "/dev/orders/" + order.orderSn + "/pay", { method: "POST" })
  const event = await received
  server.close()
  expect(event).toMatchObject({ eventType: "order.paid", orderSn: order.orderSn, amount: "12.34", currency: "USD" })
})
`
    )
    const vitest = await run("npx", ["vitest", "run", "order.test.mjs"], project, { timeoutMs: 120_000 })
    expect(vitest.stdout + vitest.stderr).toMatch(/1 passed/)
    expect(vitest.code).toBe(0)
  })

  it.each(["effect", "promise"])(
    "the client README's %s example runs as pasted (example.mts, npx tsx)",
    async (name) => {
      const mock = await startPcMock(project, [])
      try {
        write(project, `example-${name}.mts`, readmeExample(readReadme("packages/client/README.md"), name))
        const example = await run("npx", ["tsx", `example-${name}.mts`], project, {
          env: await exampleEnv(project, mock.url),
          timeoutMs: 60_000
        })
        expect(example.stdout + example.stderr).toMatch(/callback verified:? .*order\.paid/)
        expect(example.code).toBe(0)
      } finally {
        mock.child.kill("SIGTERM")
        await mock.exited
      }
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

  it.each([
    ["NodeNext", "NodeNext"],
    ["ESNext", "Bundler"]
  ])("TypeScript type-checks the public entries under module %s, moduleResolution %s", async (module, resolution) => {
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
    const tsc = await run("npx", ["tsc", "-p", `tsconfig.${resolution}.json`], project, { timeoutMs: 120_000 })
    // tsc reports type errors on stdout (stderr may carry npm's own warnings about its config).
    expect(tsc.stdout).toBe("")
    expect(tsc.code).toBe(0)
  })
})

describe("each package alone, with only its README's install line", () => {
  /** A new project with the README's install line, the @pc names served from their tarballs. */
  const alone = async (readmePath: string) => {
    const readme = readReadme(readmePath)
    const names = installLine(readme)
    const internal = internalClosure(
      tarballs,
      names.filter((name) => name.startsWith("@pc/"))
    )
    const dir = await newProject(names[0]!.replace(/\W+/g, "-"))
    await npmInstall(dir, [
      ...internal.map((name) => tarballs.get(name)!),
      ...names.filter((n) => !n.startsWith("@pc/"))
    ])
    return { dir, readme }
  }

  it("@pc/core: its example runs without effect installed", async () => {
    const { dir, readme } = await alone("packages/core/README.md")
    write(dir, "example.mts", readmeExample(readme, "core"))
    const example = await ok("npx", ["-y", "tsx@^4.20.0", "example.mts"], dir)
    expect(example.stdout).toContain("POST /openapi/v2/order/create")
  })

  it("@pc/crypto-node: its example signs and verifies", async () => {
    const { dir, readme } = await alone("packages/crypto-node/README.md")
    write(dir, "example.mts", readmeExample(readme, "sign"))
    const example = await ok("npx", ["-y", "tsx@^4.20.0", "example.mts"], dir)
    expect(example.stdout.trim()).toMatch(/ true$/)
  })

  it("@pc/crypto-web: its example loads and defines the callback endpoint", async () => {
    const { dir, readme } = await alone("packages/crypto-web/README.md")
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
    const { dir, readme } = await alone("packages/client/README.md")
    const mock = await startPcMock(project, [])
    try {
      write(dir, "example.mts", readmeExample(readme, "promise"))
      const example = await run("npx", ["-y", "tsx@^4.20.0", "example.mts"], dir, {
        env: await exampleEnv(project, mock.url),
        timeoutMs: 60_000
      })
      expect(example.stdout + example.stderr).toMatch(/callback verified:? order\.paid/)
      expect(example.code).toBe(0)
    } finally {
      mock.child.kill("SIGTERM")
      await mock.exited
    }
  })

  it("@pc/mock-server: its startMock example runs with node", async () => {
    const { dir, readme } = await alone("apps/mock-server/README.md")
    write(dir, "mock-example.mjs", readmeExample(readme, "start-mock"))
    const example = await ok("node", ["mock-example.mjs"], dir)
    expect(example.stdout.trim()).toBe("SUCCESS production 7e57c0de-0000-4000-8000-000000000001 1")
  })

  it("@pc/cli: npx pc --help", async () => {
    const { dir } = await alone("apps/cli/README.md")
    const help = await ok("npx", ["pc", "--help"], dir)
    expect(help.stdout).toContain("mock")
  })
})
