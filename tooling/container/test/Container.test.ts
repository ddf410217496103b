// The mock as a container, for real: the root Containerfile built with Podman from the CLI deployed
// with its production dependencies (scripts/container-image.mjs, as the release builds it), then
// run as a merchant in any language would: a create-order signed on the host with the test
// merchant's key, paid through the developer menu with the token the container was given, and the
// order.paid callback received and verified on the host. Then compose.yaml: PostgreSQL and two
// replicas up in one command, an order created through one replica and read through the other,
// and down in one command leaving no container, pod, network or volume behind.
import { createSign } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createPaymentClient } from "@pc/client/promise"
import { TEST_MERCHANT_APP_KEY } from "@pc/mock-server"
import { freePort, run, until } from "@pc/test-support"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBaseImages, podman, podmanEnv, podmanUnavailable } from "./support/Podman.js"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const PRIVATE_KEY = readFileSync(join(ROOT, "apps/mock-server/test-merchant/TEST-ONLY-private-key.pem"), "utf8")
const PODMAN_ON_HOST_NETWORK = fileURLToPath(new URL("./support/podman-host-network.mjs", import.meta.url))
const TOKEN = "a-developer-token-for-the-container-test"
const unavailable = podmanUnavailable()
if (unavailable !== undefined) console.warn(`skipped the container tests: ${unavailable}`)

/** What scripts/container-image.mjs recorded of the image it built. */
interface ImageRecord {
  readonly tag: string
  readonly id: string
  readonly sizeBytes: number
  readonly buildSeconds: number
}
let image: ImageRecord

/** Names of what the tests start, removed in afterAll whatever happened. */
const containers = new Set<string>()
const composeRuns: Array<() => Promise<unknown>> = []

beforeAll(async () => {
  if (unavailable !== undefined) return
  const made = await ensureBaseImages()
  if (made.length > 0) console.log(`made the stand-ins ${made.join(", ")} (kept in podman's storage for later runs)`)
  const build = await run("node", ["scripts/container-image.mjs", "build"], {
    cwd: ROOT,
    env: { ...podmanEnv(), PC_CONTAINER_ENGINE: "podman", PC_IMAGE_BUILD_ARGS: "--pull=never --network host" },
    timeoutMs: 400_000
  })
  expect(build.code, `${build.stdout}\n${build.stderr}`).toBe(0)
  image = JSON.parse(readFileSync(join(ROOT, ".container/image.json"), "utf8")) as ImageRecord
  console.log(
    `image ${image.tag}: ${(image.sizeBytes / 1e6).toFixed(0)} MB, built in ${image.buildSeconds.toFixed(1)} s`
  )
})

afterAll(async () => {
  for (const down of composeRuns) await down().catch(() => undefined)
  for (const name of containers) await podman(["rm", "-f", "-v", name]).catch(() => undefined)
})

/** A create-order request signed as the README's openssl lines sign it. */
const signedCreateOrder = (baseUrl: string, orderId: string) => {
  const body = JSON.stringify({ orderId, amount: "10.00", currency: "USD" })
  const timestamp = String(Date.now())
  const signature = createSign("sha256")
    .update(`POST /openapi/v2/order/create\n${TEST_MERCHANT_APP_KEY}.${timestamp}.${body}`)
    .sign(PRIVATE_KEY, "base64")
  return fetch(`${baseUrl}/openapi/v2/order/create`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-r-ak": TEST_MERCHANT_APP_KEY,
      "x-r-ts": timestamp,
      "x-r-key-version": "1",
      "x-r-signature": signature
    },
    body
  })
}

/** A /dev call with the developer token (the mock in the container is bound to 0.0.0.0). */
const dev = async <T>(baseUrl: string, method: string, path: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const envelope = (await response.json()) as { code: string; msg: string | null; data: T }
  if (envelope.code !== "SUCCESS")
    throw new Error(`${method} ${path}: HTTP ${response.status} ${envelope.code} ${envelope.msg}`)
  return envelope.data
}

const healthy = (baseUrl: string) => async (): Promise<true | undefined> => {
  try {
    return (await fetch(`${baseUrl}/healthz`)).ok ? true : undefined
  } catch {
    return undefined
  }
}

describe.skipIf(unavailable !== undefined)("the pc image", () => {
  it("answers --help with pc's commands, the entry point being pc", async () => {
    // The README's and compose.yaml's name, payment-connect/pc(:latest), is this build too.
    expect((await podman(["image", "inspect", "--format", "{{.Id}}", "payment-connect/pc:latest"])).trim()).toBe(
      image.id
    )
    const help = await podman(["run", "--rm", "payment-connect/pc", "--help"])
    expect(help).toMatch(/USAGE/)
    expect(help).toMatch(/\bmock\b/)
    const [inspected] = JSON.parse(await podman(["image", "inspect", image.tag])) as Array<{
      Config: { Entrypoint: Array<string>; Cmd: Array<string>; User: string; ExposedPorts: object; Volumes: object }
      Healthcheck: { Test: Array<string> }
    }>
    expect(inspected!.Config.Entrypoint).toEqual(["pc"])
    expect(inspected!.Config.Cmd).toEqual(["mock"])
    expect(inspected!.Config.User).toBe("node")
    expect(Object.keys(inspected!.Config.ExposedPorts)).toEqual(["4010/tcp"])
    expect(Object.keys(inspected!.Config.Volumes)).toEqual(["/data"])
    expect(inspected!.Healthcheck.Test.slice(0, 3)).toEqual(["CMD", "node", "-e"])
  })

  it("serves a production mock that a host signs against, pays through, and gets a verified callback from", async () => {
    const port = await freePort()
    const name = `pc-mock-test-${process.pid}`
    containers.add(name)
    // The host's network: this machine has no container network, and so the callback receiver on
    // the host's 127.0.0.1 is reachable from the mock as a merchant's endpoint would be.
    await podman([
      "run",
      "-d",
      "--name",
      name,
      "--network",
      "host",
      "-e",
      `PC_MOCK_PORT=${port}`,
      "-e",
      `PC_MOCK_DEV_TOKEN=${TOKEN}`,
      image.tag,
      "mock",
      "--env",
      "production"
    ])
    const baseUrl = `http://127.0.0.1:${port}`
    await until(healthy(baseUrl), "the container's /healthz", { timeoutMs: 60_000, intervalMs: 200 })
    const logs = await podman(["logs", name])
    expect(logs).toMatch(/listening on http:\/\/0\.0\.0\.0:/)
    expect(logs).toMatch(/environment: +production/)
    // The image's HEALTHCHECK, run once as the engine runs it.
    const check = await run("podman", ["healthcheck", "run", name], { env: podmanEnv() })
    expect(check.code, check.stderr).toBe(0)
    // Bound to 0.0.0.0, the developer menu wants the token.
    expect((await fetch(`${baseUrl}/dev/platform-keys`)).status).toBe(401)

    const platformKeys = await dev<ReadonlyArray<{ version: number; publicKeyPem: string }>>(
      baseUrl,
      "GET",
      "/dev/platform-keys"
    )
    const client = await createPaymentClient({
      environment: "production",
      baseUrl,
      appKey: TEST_MERCHANT_APP_KEY,
      privateKeys: { 1: PRIVATE_KEY },
      callbacks: {
        platformKeys: { production: Object.fromEntries(platformKeys.map((key) => [key.version, key.publicKeyPem])) }
      }
    })
    let received: (event: { eventType: string; orderSn: string }) => void = () => undefined
    const callback = new Promise<{ eventType: string; orderSn: string }>((resolve) => (received = resolve))
    const receiver: Server = createServer(client.nodeCallbackHandler(async (event) => received(event)))
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    try {
      const notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callbacks`
      await dev(baseUrl, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl })

      const created = await signedCreateOrder(baseUrl, `container-${Date.now()}`)
      const envelope = (await created.json()) as { code: string; data: { orderSn: string; h5Url: string } }
      expect(envelope.code).toBe("SUCCESS")
      await dev(baseUrl, "POST", `/dev/orders/${envelope.data.orderSn}/pay`)
      const event = await callback
      expect(event).toMatchObject({ eventType: "order.paid", orderSn: envelope.data.orderSn })
    } finally {
      receiver.close()
    }

    // docker stop / podman stop: SIGTERM to pc as PID 1, which stops the mock cleanly (exit 0).
    await podman(["stop", "--time", "20", name])
    expect((await podman(["inspect", "--format", "{{.State.ExitCode}}", name])).trim()).toBe("0")
    expect(await podman(["logs", name])).toMatch(/stopping the mock: SIGTERM[\s\S]*the mock stopped/)
  })
})

describe.skipIf(unavailable !== undefined)("compose.yaml", () => {
  it("starts PostgreSQL and two replicas in one command, shares orders between them, and stops leaving nothing", async () => {
    const [pgPort, port1, port2] = [await freePort(), await freePort(), await freePort()]
    const project = `pc-mock-test-${process.pid}`
    // On the host's network (see above), each service on a free port; the rest is compose.yaml's.
    const dir = mkdtempSync(join(tmpdir(), "pc-compose-"))
    const override = join(dir, "compose.host-network.yaml")
    const mockOn = (port: number) => ({
      network_mode: "host",
      environment: { PC_MOCK_DB: `postgres://mock:mock@127.0.0.1:${pgPort}/mock`, PC_MOCK_PORT: String(port) }
    })
    writeFileSync(
      override,
      JSON.stringify({
        services: {
          // PGPORT moves both the server and compose.yaml's pg_isready health check.
          db: {
            network_mode: "host",
            environment: { PGPORT: String(pgPort) },
            command: ["postgres", "-c", "listen_addresses=127.0.0.1"]
          },
          "mock-1": mockOn(port1),
          "mock-2": mockOn(port2)
        }
      })
    )
    const env = { ...podmanEnv(), PC_IMAGE: image.tag, PC_MOCK_DEV_TOKEN: TOKEN }
    const compose = (args: ReadonlyArray<string>) =>
      run(
        "podman-compose",
        [
          "--podman-path",
          PODMAN_ON_HOST_NETWORK,
          "-p",
          project,
          "-f",
          join(ROOT, "compose.yaml"),
          "-f",
          override,
          ...args
        ],
        { cwd: ROOT, env, timeoutMs: 180_000 }
      )
    composeRuns.push(() => compose(["down", "-v"]))
    composeRuns.push(() => podman(["network", "rm", "--force", `${project}_default`]))

    const up = await compose(["up", "-d"])
    expect(up.code, `${up.stdout}\n${up.stderr}`).toBe(0)
    const [replica1, replica2] = [`http://127.0.0.1:${port1}`, `http://127.0.0.1:${port2}`]
    await until(healthy(replica1), "replica 1's /healthz", { timeoutMs: 120_000, intervalMs: 250 })
    await until(healthy(replica2), "replica 2's /healthz", { timeoutMs: 120_000, intervalMs: 250 })

    const created = (await (await signedCreateOrder(replica1, `compose-${Date.now()}`)).json()) as {
      code: string
      data: { orderSn: string }
    }
    expect(created.code).toBe("SUCCESS")
    const read = await dev<{ orderSn: string; status: string }>(replica2, "GET", `/dev/orders/${created.data.orderSn}`)
    expect(read).toMatchObject({ orderSn: created.data.orderSn, status: "CREATED" })

    const down = await compose(["down", "-v"])
    expect(down.code, `${down.stdout}\n${down.stderr}`).toBe(0)
    // podman-compose 1.0.3 makes the project's default network on `up` (unused on the host's
    // network) and leaves it on `down`; Docker Compose and later podman-compose remove it.
    await podman(["network", "rm", "--force", `${project}_default`]).catch(() => undefined)
    const label = `label=io.podman.compose.project=${project}`
    expect((await podman(["ps", "-a", "--filter", label, "--format", "{{.Names}}"])).trim()).toBe("")
    expect((await podman(["volume", "ls", "--filter", label, "--format", "{{.Name}}"])).trim()).toBe("")
    expect((await podman(["pod", "ls", "--format", "{{.Name}}"])).split("\n")).not.toContain(`pod_${project}`)
    expect(
      (await podman(["network", "ls", "--format", "{{.Name}}"])).split("\n").filter((n) => n.startsWith(project))
    ).toEqual([])
  })
})
