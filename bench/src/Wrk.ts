// The load generator: Debian's `wrk` in its own process, one thread, with a Lua script that cycles
// through pre-signed distinct orders. It shares no event loop with the servers or with the bench.
import { execFileSync, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SignedOrder } from "./Orders.js"
import { CREATE_ORDER_PATH, type Running } from "./Servers.js"

const has = (command: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/**
 * Makes sure `wrk` is on the PATH, installing Debian's package when it is missing (as root; waits
 * for another apt run's lock). Throws with what to run by hand when that is not possible.
 */
export const ensureWrk = (): void => {
  if (has("wrk")) return
  if (process.getuid?.() !== 0 || !has("apt-get")) {
    throw new Error("the bench needs wrk: install it (Debian/Ubuntu: apt-get install wrk) and run again")
  }
  const apt = (args: ReadonlyArray<string>) =>
    execFileSync("apt-get", ["-o", "DPkg::Lock::Timeout=300", ...args], { stdio: "ignore" })
  try {
    apt(["install", "-y", "-qq", "wrk"])
  } catch {
    apt(["update", "-qq"])
    apt(["install", "-y", "-qq", "wrk"])
  }
  if (!has("wrk")) throw new Error("apt-get installed wrk, yet it is not on the PATH")
}

/** Printable ASCII only: the data file is split on tabs and newlines. */
const field = (text: string): string => {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`not printable ASCII: ${text}`)
  return text
}

/**
 * Writes the orders to a data file (one per line: tab-separated `name: value` headers, then the
 * body) and the script that reads it once per thread, sends the orders in turn (each connection
 * takes the next one) and prints wrk's summary as one JSON line. Latencies are in microseconds.
 */
export const writeScript = (
  dir: string,
  orders: ReadonlyArray<SignedOrder>,
  path = CREATE_ORDER_PATH,
  options: { readonly once?: boolean } = {}
): string => {
  const stamp = `${orders.length}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`
  const data = join(dir, `orders-${stamp}.txt`)
  writeFileSync(
    data,
    orders
      .map((order) => [
        ...Object.entries(order.headers).map(([name, value]) => `${field(name)}: ${field(value)}`),
        field(order.body)
      ])
      .map((fields) => `${fields.join("\t")}\n`)
      .join("")
  )
  const file = join(dir, `orders-${stamp}.lua`)
  writeFileSync(
    file,
    `local requests = {}
local next = 0
init = function(args)
  for line in io.lines(${JSON.stringify(data)}) do
    local headers = {}
    local fields = {}
    for f in string.gmatch(line, "[^\\t]+") do fields[#fields + 1] = f end
    for i = 1, #fields - 1 do
      local name, value = string.match(fields[i], "^([^:]+): (.*)$")
      headers[name] = value
    end
    requests[#requests + 1] = wrk.format("POST", ${JSON.stringify(path)}, headers, fields[#fields])
  end
end
request = function()
  next = next % #requests + 1
  return requests[next]
end
${
  options.once === true
    ? `-- Once: each order is sent once. When as many answers as orders have come, the thread stops
-- sending, and the line below tells runLoad to end wrk (SIGINT: wrk's main thread would otherwise
-- sleep out -d; it reports as usual, timed to that moment).
local answered = 0
response = function(status, headers, body)
  answered = answered + 1
  if answered == #requests then
    wrk.thread:stop()
    io.write("PCBENCH-ALL-ANSWERED\\n")
    io.flush()
  end
end
`
    : ""
}done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('PCBENCH {"requests":%d,"durationUs":%d,"non2xx":%d,"socketErrors":%d,"p50Us":%d,"p99Us":%d,"meanUs":%.1f}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean))
end
`
  )
  return file
}

export interface LoadResult {
  readonly requests: number
  /** Answers that were not 2xx (only a run told to expect some may have any). */
  readonly non2xx: number
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly meanMs: number
  /** CPU time the server used per request during the run, in milliseconds: robust to a busy machine. */
  readonly cpuMsPerRequest: number
  /** The largest RSS of the server seen while the load ran (sampled every 200 ms), MB. */
  readonly peakRssMb: number
}

/**
 * Runs wrk against `server` with `connections` for `seconds`; fails when any answer was not 2xx
 * or a socket failed, since a fast error is not a create.
 */
export const runLoad = (
  server: Running,
  script: string,
  options: {
    readonly connections: number
    readonly seconds: number
    /** The share of answers that must be refusals (the bad-signature run); 0 unless told. */
    readonly refusedShare?: number
    /**
     * The script was written `once`: wrk is ended as soon as every order has its answer, so
     * `seconds` is only the longest the run may take, and its rate is over the time it ran.
     */
    readonly untilAllAnswered?: boolean
  }
): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    let peakRssMb = server.rssMb()
    const cpuBefore = server.cpuSeconds()
    const sampler = setInterval(() => {
      try {
        peakRssMb = Math.max(peakRssMb, server.rssMb())
      } catch {
        // The process is gone; wrk will say so.
      }
    }, 200)
    const child = spawn(
      "wrk",
      [
        "-t1",
        `-c${options.connections}`,
        `-d${options.seconds}s`,
        "--timeout",
        "10s",
        "-s",
        script,
        `${server.url}${CREATE_ORDER_PATH}`
      ],
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    let out = ""
    let ended = false
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (options.untilAllAnswered === true && !ended && out.includes("PCBENCH-ALL-ANSWERED")) {
        ended = true
        child.kill("SIGINT")
      }
    })
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.once("error", (error) => {
      clearInterval(sampler)
      reject(error)
    })
    child.once("exit", (code) => {
      clearInterval(sampler)
      const cpuSeconds = server.cpuSeconds() - cpuBefore
      const line = /PCBENCH (\{.*\})/.exec(out)
      if (code !== 0 || line === null) return reject(new Error(`wrk failed (${code}):\n${out}`))
      const summary = JSON.parse(line[1]!) as {
        requests: number
        durationUs: number
        non2xx: number
        socketErrors: number
        p50Us: number
        p99Us: number
        meanUs: number
      }
      // Exactly the refusals the pool holds (each connection takes the next order, so the share
      // holds to within the connections' last requests), and never a failed socket.
      const expected = (options.refusedShare ?? 0) * summary.requests
      if (Math.abs(summary.non2xx - expected) > options.connections + 1 || summary.socketErrors > 0) {
        return reject(
          new Error(
            `${server.name}: ${summary.non2xx} answers were not 2xx (expected ${Math.round(expected)}) and ${summary.socketErrors} sockets failed of ${summary.requests}`
          )
        )
      }
      resolve({
        requests: summary.requests,
        non2xx: summary.non2xx,
        requestsPerSecond: summary.requests / (summary.durationUs / 1e6),
        p50Ms: summary.p50Us / 1000,
        p99Ms: summary.p99Us / 1000,
        meanMs: summary.meanUs / 1000,
        cpuMsPerRequest: (cpuSeconds * 1000) / Math.max(1, summary.requests),
        peakRssMb
      })
    })
  })
