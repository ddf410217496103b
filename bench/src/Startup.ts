// Start-up of the mock as `pnpm mock` and `npx pc mock` run it: plain `node` on the built bin, from
// spawn to the first `/healthz` 200 on `:memory:` (and to its "listening" line), then its idle RSS.
// In the same run, the floors no mock can beat: `node -e 0` (spawn to exit) and a bare node:http
// server loaded the same way (spawn to its first 200).
//
// The probe is precise on purpose: the processes are spawned directly (no shell, no loader hooks,
// no flags the user would not pass), `/healthz` is polled from the moment of the spawn with
// node:http (no fetch: loading undici in the bench would compete with the child for the CPU), every
// SLOW_POLL_MS until the server prints that it listens, then every POLL_MS: the figure is the
// server's start-up within a couple of milliseconds. Polling every 2 ms from the spawn on cost the
// mock about 20 ms of its own start on a 2-core machine (its listening line at a median of 445 ms
// against 423 ms with 20 ms polls, 20 interleaved starts): the probe competed with what it measured.
// A server that answered before it printed its line would still be seen within SLOW_POLL_MS.
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import { atMost, type SuiteResult } from "./Results.js"
import { freePort, mockArgs, ROOT } from "./Servers.js"
import { median, round, spread } from "./Stats.js"

const POLL_MS = 2
const SLOW_POLL_MS = 20
const here = (path: string) => new URL(path, import.meta.url).pathname

/** One GET /healthz: its status, 0 when nothing listens yet. A hang is the server's bug: it throws. */
const healthz = (port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/healthz", agent: false }, (response) => {
      response.resume()
      response.once("end", () => resolve(response.statusCode ?? 0))
    })
    req.setTimeout(5_000, () => {
      req.destroy()
      reject(new Error(`GET /healthz on port ${port} accepted and not answered within 5 s`))
    })
    req.once("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNREFUSED" ? resolve(0) : reject(error)))
    req.end()
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
const cpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const rssMb = (pid: number): number => {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return kb === null ? Number.NaN : Number(kb[1]) / 1024
}

interface Started {
  /** Spawn to the first /healthz 200. */
  readonly readyMs: number
  /** Spawn to the line saying it listens (stdout), as the user sees it. */
  readonly listeningMs: number
  /** CPU the process used from spawn to ready. */
  readonly cpuMs: number
  readonly child: ChildProcess
  /** Full GC (needs the GC hook), then RSS in MB. */
  readonly idleRssMb: () => Promise<number>
  readonly stop: () => Promise<void>
}

/** Spawns `node <args>` from the repository root and polls `/healthz` on `port` until it answers 200. */
const startAndProbe = async (name: string, args: ReadonlyArray<string>, port: number): Promise<Started> => {
  const started = performance.now()
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  let listeningMs = Number.NaN
  // Resolves when the server prints that it listens: a slow poll's wait ends there.
  let heardListening: () => void = () => {}
  const listening = new Promise<void>((resolve) => {
    heardListening = resolve
  })
  let tail = ""
  let gcDone: (() => void) | undefined
  child.stdout!.on("data", (chunk: Buffer) => {
    const text = chunk.toString()
    if (Number.isNaN(listeningMs) && /listening/.test(text)) {
      listeningMs = performance.now() - started
      heardListening()
    }
    if (text.includes("pc-bench:gc-done")) gcDone?.()
    tail = (tail + text).slice(-4_000)
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4_000)
  })
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      const force = setTimeout(() => child.kill("SIGKILL"), 5_000)
      child.once("exit", () => {
        clearTimeout(force)
        resolve()
      })
      child.kill("SIGTERM")
    })
  const deadline = started + 60_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited with ${child.exitCode ?? child.signalCode} before it was ready:\n${tail}`)
    if (performance.now() > deadline) {
      await stop()
      throw new Error(`${name} was not ready within 60 s:\n${tail}`)
    }
    const status = await healthz(port)
    if (status === 200) break
    await (Number.isNaN(listeningMs) ? Promise.race([sleep(SLOW_POLL_MS), listening]) : sleep(POLL_MS))
  }
  const readyMs = performance.now() - started
  return {
    readyMs,
    listeningMs,
    cpuMs: cpuMs(child.pid!),
    child,
    idleRssMb: async () => {
      await new Promise<void>((resolve, reject) => {
        // As Servers.ts: a child gone before its hook answered is an error, not an await left unsettled.
        const gone = () =>
          reject(
            new Error(`${name} exited with ${child.exitCode ?? child.signalCode} before its GC hook answered:\n${tail}`)
          )
        if (child.exitCode !== null || child.signalCode !== null) return gone()
        child.once("exit", gone)
        gcDone = () => {
          child.off("exit", gone)
          resolve()
        }
        child.kill("SIGUSR2")
      })
      return rssMb(child.pid!)
    },
    stop
  }
}

/** `node -e 0` from spawn to exit: Node's own start and stop on this machine now. */
const nodeAlone = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore", env: { ...process.env, NODE_OPTIONS: "" } })
    child.once("error", reject)
    child.once("exit", () => resolve(performance.now() - started))
  })

const mockOnMemory = async (options: { readonly gcHook: boolean }) => {
  const port = await freePort()
  const hook = options.gcHook ? ["--expose-gc", "--import", here("./servers/GcOnSignal.mjs")] : []
  return startAndProbe("mock", [...hook, ...mockArgs({ port, db: ":memory:" })], port)
}

export const startupSuite = async (options: {
  readonly spawns: number
  readonly warmUp: boolean
}): Promise<SuiteResult> => {
  const mock: Array<Started> = []
  const bare: Array<number> = []
  const node: Array<number> = []
  const idleRss: Array<number> = []
  const hookedReady: Array<number> = []
  // One unmeasured start first: the page cache is then warm, as for a developer's second `pnpm mock`.
  if (options.warmUp) await (await mockOnMemory({ gcHook: false })).stop()
  // The floors and the mock alternate, so a change in the machine's load touches them alike.
  for (let i = 0; i < options.spawns; i++) {
    node.push(await nodeAlone())
    const barePort = await freePort()
    const bareServer = await startAndProbe("bare", [here("./servers/BareHealthz.mjs"), String(barePort)], barePort)
    bare.push(bareServer.readyMs)
    await bareServer.stop()
    // Timed exactly as a user runs it: no flags.
    const timed = await mockOnMemory({ gcHook: false })
    mock.push(timed)
    await timed.stop()
    // Its memory from a second start with the bench's GC hook preloaded: RSS half a second after
    // ready and a full GC.
    const hooked = await mockOnMemory({ gcHook: true })
    hookedReady.push(hooked.readyMs)
    await sleep(500)
    idleRss.push(await hooked.idleRssMb())
    await hooked.stop()
  }
  const readyMs = mock.map((run) => run.readyMs)
  const ms = (values: ReadonlyArray<number>) => values.map((value) => round(value, 0))
  return {
    targets: {
      "mock spawn to first /healthz 200": atMost(
        median(readyMs),
        500,
        "ms",
        `median of ${options.spawns} spawns of plain node on the built bin, :memory:, /healthz polled every ${SLOW_POLL_MS} ms until it says it listens, then every ${POLL_MS} ms${options.warmUp ? ", after one unmeasured start" : ""}`
      ),
      "mock idle RSS": atMost(
        median(idleRss),
        150,
        "MB",
        "RSS of the mock on :memory: half a second after it is ready and a GC, median of the spawns"
      )
    },
    figures: {
      mockReadyMs: ms(readyMs),
      mockListeningLineMs: ms(mock.map((run) => run.listeningMs)),
      mockCpuToReadyMs: mock.map((run) => run.cpuMs),
      mockReadySpread: { ...spread(readyMs), relative: round(spread(readyMs).relative, 2) },
      mockWithGcHookReadyMs: ms(hookedReady),
      bareHttpReadyMs: ms(bare),
      nodeAloneMs: ms(node),
      mockOverBareMs: round(median(readyMs) - median(bare), 0),
      // The machine's speed drifts between spawns (node -e 0 itself read 116-193 ms in one run): the
      // mock's start in units of Node's own start just before it, spawn by spawn.
      mockOverNodeAlone: round(median(readyMs.map((ms, i) => ms / node[i]!)), 2),
      mockIdleRssMb: round(median(idleRss), 1)
    }
  }
}
