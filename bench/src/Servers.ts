// Every server under test runs as its own process, started here: the mock (the way `pnpm mock`
// starts it), the bare verifying server and Prism. Each is ready when it answers HTTP; its RSS is
// read from /proc and a GC is asked of it by signal (see servers/GcOnSignal.mjs).
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"

export const ROOT = new URL("../../", import.meta.url).pathname
const here = (path: string) => new URL(path, import.meta.url).pathname

/**
 * How `pnpm mock` runs the mock, as Node arguments from the repository root: the built `pc` bin
 * (`@pc/cli` is a dependency of this package, so turbo builds it before the bench runs).
 * `PC_BENCH_MOCK_BIN` names another build's bin, to profile two builds one after the other (a copy of
 * `apps/cli/dist` made before a change, kept inside the repository so that it finds the packages).
 */
export const MOCK_COMMAND: ReadonlyArray<string> = [process.env.PC_BENCH_MOCK_BIN ?? "apps/cli/dist/bin.js", "mock"]

/** The mock's flags for one run: production unless told, on the given port and database. */
export const mockArgs = (options: {
  readonly port: number
  readonly db: string
  readonly environment?: string
  readonly extra?: ReadonlyArray<string>
}): ReadonlyArray<string> => [
  ...MOCK_COMMAND,
  "--env",
  options.environment ?? "production",
  "--port",
  String(options.port),
  "--db",
  options.db,
  ...(options.extra ?? [])
]

export const TEST_MERCHANT_APP_KEY = "7e57c0de-0000-4000-8000-000000000001"
export const CREATE_ORDER_PATH = "/openapi/v2/order/create"
export const testMerchantKeyFile = (name: "private" | "public") =>
  `${ROOT}apps/mock-server/test-merchant/TEST-ONLY-${name}-key.pem`

/** A port that was free a moment ago (the servers under test need it before they print anything). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

export interface Running {
  readonly name: string
  readonly url: string
  readonly pid: number
  /** Milliseconds from spawn to the first answer that counts as ready. */
  readonly readyMs: number
  /** Resident set size now, in MB, from /proc. */
  readonly rssMb: () => number
  /** CPU time the process has used so far (user + system), in seconds, from /proc. */
  readonly cpuSeconds: () => number
  /** Asks for a full GC and resolves once it ran with the live heap then, in MB (only for servers started with `gc: true`). */
  readonly gc: () => Promise<number>
  readonly stop: () => Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Spawns `node <nodeArgs>` from the repository root and resolves once `GET url + readyPath` answers
 * with a status `ready` accepts, polling every few milliseconds from the moment of the spawn.
 */
export const startServer = async (options: {
  readonly name: string
  readonly nodeArgs: ReadonlyArray<string>
  readonly port: number
  readonly readyPath: string
  readonly ready: (status: number) => boolean
  /** Preload the GC-on-signal hook with --expose-gc. */
  readonly gc?: boolean
  /** Default 3 minutes: a cold start with the loader's transforms on a saturated machine is slow. */
  readonly timeoutMs?: number
}): Promise<Running> => {
  const url = `http://127.0.0.1:${options.port}`
  const flags = options.gc === true ? ["--expose-gc", "--import", here("./servers/GcOnSignal.mjs")] : []
  const started = performance.now()
  const child: ChildProcess = spawn(process.execPath, [...flags, ...options.nodeArgs], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_ENV: "production" }
  })
  let tail = ""
  let gcWaiters: Array<(heapUsedMb: number) => void> = []
  child.stdout!.on("data", (chunk: Buffer) => {
    const text = chunk.toString()
    const done = /pc-bench:gc-done (\d+)/.exec(text)
    if (done !== null) {
      for (const resolve of gcWaiters) resolve(Number(done[1]) / 1024 / 1024)
      gcWaiters = []
    }
    tail = (tail + text).slice(-4_000)
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4_000)
  })
  let exited: number | null | undefined
  child.once("exit", (code) => {
    exited = code
  })
  const deadline = started + (options.timeoutMs ?? 180_000)
  let readyMs: number | undefined
  while (readyMs === undefined) {
    if (exited !== undefined) throw new Error(`${options.name} exited with ${exited} before it was ready:\n${tail}`)
    if (performance.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`${options.name} was not ready within ${options.timeoutMs ?? 180_000} ms:\n${tail}`)
    }
    try {
      const response = await fetch(`${url}${options.readyPath}`, { signal: AbortSignal.timeout(2_000) })
      await response.arrayBuffer()
      if (options.ready(response.status)) readyMs = performance.now() - started
    } catch {
      await sleep(5)
    }
  }
  const pid = child.pid!
  return {
    name: options.name,
    url,
    pid,
    readyMs,
    rssMb: () => {
      const status = readFileSync(`/proc/${pid}/status`, "utf8")
      const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)
      return kb === null ? Number.NaN : Number(kb[1]) / 1024
    },
    cpuSeconds: () => {
      // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name, in clock ticks (100/s on Linux).
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return (Number(fields[11]) + Number(fields[12])) / 100
    },
    gc: () =>
      new Promise<number>((resolve, reject) => {
        if (options.gc !== true) return reject(new Error(`${options.name} was started without the GC hook`))
        // A child gone before its hook answered would leave this waiting with nothing left to run,
        // and the bench would end with Node's bare exit code 13 for an unsettled await: say why.
        const gone = () =>
          reject(new Error(`${options.name} exited with ${exited} before its GC hook answered:\n${tail}`))
        if (exited !== undefined) return gone()
        child.once("exit", gone)
        gcWaiters.push((heapUsedMb) => {
          child.off("exit", gone)
          resolve(heapUsedMb)
        })
        child.kill("SIGUSR2")
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited !== undefined) return resolve()
        const force = setTimeout(() => child.kill("SIGKILL"), 5_000)
        child.once("exit", () => {
          clearTimeout(force)
          resolve()
        })
        child.kill("SIGTERM")
      })
  }
}

/** The mock, production unless told, on `db`, as `pnpm mock` runs it; ready at its first `/healthz` 200. */
export const startMock = async (
  db: string,
  options: { readonly environment?: string; readonly gc?: boolean; readonly extra?: ReadonlyArray<string> } = {}
): Promise<Running> => {
  const port = await freePort()
  return startServer({
    name: "mock",
    nodeArgs: mockArgs({ port, db, ...options }),
    port,
    readyPath: "/healthz",
    ready: (status) => status === 200,
    gc: options.gc ?? false
  })
}

/**
 * The bare verifying server; any HTTP answer means it listens. With `padMs`, it spins that much more
 * CPU on each request (named "bare-padded"). `verify` says where it verifies signatures: `loop`, every
 * one on its event loop (the targets' baseline), or `pool`, the later requests of a turn on the thread
 * pool as the mock's fast path does (named "bare-pool").
 */
export const startBare = async (padMs = 0, verify: "loop" | "pool" = "loop"): Promise<Running> => {
  const port = await freePort()
  return startServer({
    name: padMs > 0 ? "bare-padded" : verify === "pool" ? "bare-pool" : "bare",
    nodeArgs: [
      "--import",
      "tsx",
      here("./servers/BareServer.ts"),
      testMerchantKeyFile("public"),
      String(port),
      padMs.toFixed(3),
      verify
    ],
    port,
    readyPath: "/",
    ready: () => true,
    gc: true
  })
}

/**
 * Prism (`@stoplight/prism-cli`, the bench's devDependency) mocking the document at `openApiFile`:
 * static examples, no signature check, no storage. Ready once it answers `/healthz` from the document.
 */
export const startPrism = async (openApiFile: string): Promise<Running> => {
  const port = await freePort()
  const manifest = createRequire(import.meta.url).resolve("@stoplight/prism-cli/package.json")
  const bin = new URL("./dist/index.js", `file://${manifest}`).pathname
  return startServer({
    name: "prism",
    nodeArgs: [bin, "mock", "--host", "127.0.0.1", "--port", String(port), openApiFile],
    port,
    readyPath: "/healthz",
    ready: (status) => status === 200,
    gc: true
  })
}
