// Signed creates per second against the mock (production, file database) and against the bare
// verifying server, both as child processes, loaded from this process over keep-alive loopback.
import { Canonical } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"

const ROOT = new URL("../../", import.meta.url).pathname
const APP_KEY = "7e57c0de-0000-4000-8000-000000000001"
const PATH = "/openapi/v2/order/create"

export const launch = (args: ReadonlyArray<string>): Promise<{ readonly url: string; readonly child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env }
    })
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (http:\/\/[0-9.:]+)/.exec(out)
      if (match) {
        child.stdout!.removeAllListeners("data")
        child.stdout!.resume()
        resolve({ url: match[1]!, child })
      }
    })
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${out}`)))
  })

interface Prepared {
  readonly headers: Record<string, string>
  readonly body: string
}

const prepare = async (privatePem: string, count: number, tag: string): Promise<Array<Prepared>> => {
  const signer = await NodeCrypto.importPrivateKey(privatePem)
  const out: Array<Prepared> = []
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({ orderId: `bench-${tag}-${i}`, amount: "10.00", currency: "USD" })
    const timestamp = String(Date.now())
    const signature = await signer.sign(
      Canonical.requestStringToSign({ method: "POST", path: PATH, appKey: APP_KEY, timestamp, body })
    )
    out.push({
      body,
      headers: {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "x-r-ak": APP_KEY,
        "x-r-ts": timestamp,
        "x-r-key-version": "1",
        "x-r-signature": signature
      }
    })
  }
  return out
}

const send = (agent: Agent, url: URL, prepared: Prepared): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(
      { agent, host: url.hostname, port: url.port, path: PATH, method: "POST", headers: prepared.headers },
      (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      }
    )
    req.on("error", reject)
    req.end(prepared.body)
  })

/** Requests per second for `requests`, `concurrency` at a time; every answer must be 200. */
const load = async (baseUrl: string, requests: ReadonlyArray<Prepared>, concurrency: number): Promise<number> => {
  const url = new URL(baseUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  let next = 0
  let failures = 0
  const start = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const status = await send(agent, url, requests[next++]!)
        if (status !== 200) failures++
      }
    })
  )
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  agent.destroy()
  if (failures > 0) throw new Error(`${failures} requests did not succeed`)
  return requests.length / seconds
}

export const httpBench = async (
  privatePem: string,
  publicPemFile: string,
  options = { requests: 3000, concurrency: 16 }
) => {
  const dir = mkdtempSync(join(tmpdir(), "pc-bench-"))
  const baseline = await launch(["bench/src/baseline-server.ts", publicPemFile])
  const mock = await launch([
    "apps/mock-server/src/main.ts",
    "--env",
    "production",
    "--port",
    "0",
    "--db",
    join(dir, "bench.sqlite")
  ])
  try {
    const rounds = 3
    const baselineRates: Array<number> = []
    const mockRates: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      // Warm both, then alternate, with requests signed before the clock starts.
      const forBaseline = await prepare(privatePem, options.requests, `b${round}`)
      const forMock = await prepare(privatePem, options.requests, `m${round}`)
      baselineRates.push(await load(baseline.url, forBaseline, options.concurrency))
      mockRates.push(await load(mock.url, forMock, options.concurrency))
    }
    const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    const ratios = mockRates.map((m, i) => m / baselineRates[i]!)
    return { baseline: median(baselineRates), candidate: median(mockRates), ratio: median(ratios) }
  } finally {
    baseline.child.kill("SIGTERM")
    mock.child.kill("SIGTERM")
    rmSync(dir, { recursive: true, force: true })
  }
}
