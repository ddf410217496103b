// The README's shared replay guard examples run as they are: for each, two receivers started from
// the example's code share one real store (a throwaway Redis, PostgreSQL or MariaDB); one signed
// delivery posted to the first is accepted, the same bytes posted to the second are refused as a
// replay. MariaDB runs the SQL example as the README tells MySQL users to change it.
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, startMariadb, startPostgres, startRedis } from "@pc/servers"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventBody, signCallback } from "./support/callbacks.js"
import { until } from "@pc/test-support"
import { keyOf } from "./support/vectors.js"

const packageDir = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(join(packageDir, "README.md"), "utf8")
const readmeBlocks = new Map(
  [...readme.matchAll(/<!-- replay-example: ([a-z-]+) -->\n```ts\n([\s\S]*?)\n```/g)].map(([, name, code]) => [
    name!,
    code!
  ])
)
/** The SQL example as the README tells MySQL/MariaDB users to change it: MysqlClient's layer for PgClient's. */
const onMysql = (code: string) => {
  const swapped = code
    .replace('import { PgClient } from "@effect/sql-pg"', 'import { MysqlClient } from "@effect/sql-mysql2"')
    .replace("PgClient.layer(", "MysqlClient.layer(")
  if (swapped.includes("PgClient") || !readme.includes("`MysqlClient.layer(")) {
    throw new Error("the README's sql example and its MySQL instructions no longer match: update both")
  }
  return swapped
}
const examples = new Map([...readmeBlocks, ["sql-mysql", onMysql(readmeBlocks.get("sql") ?? "")]])
const require = createRequire(import.meta.url)
const exampleFile = (name: string) => join(packageDir, `.readme-replay-${name}.ts`)
const tsconfig = join(tmpdir(), `pc-client-replay-readme-${process.pid}.tsconfig.json`)
const APP_KEY = "7e57c0de-0000-4000-8000-000000000001"

interface Receiver {
  readonly url: string
  readonly output: () => string
  readonly child: ChildProcess
}

/** Starts the example as a receiver on a free port; resolves once it says it is listening. */
const startReceiver = async (file: string, env: Record<string, string>): Promise<Receiver> => {
  const port = await freePort()
  const child = spawn(process.execPath, ["--import", "tsx", file], {
    cwd: packageDir,
    env: { ...process.env, ...env, PORT: String(port), TSX_TSCONFIG_PATH: tsconfig },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8")
  }
  child.stdout.on("data", collect)
  child.stderr.on("data", collect)
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`receiver did not start:\n${output}`)), 45_000)
    child.stdout.on("data", () => {
      if (output.includes("receiving callbacks")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`receiver exited ${code}:\n${output}`))
    })
  })
  return { url: `http://127.0.0.1:${port}/callbacks`, output: () => output, child }
}

const post = async (url: string, headers: Record<string, string>, body: string) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body
  })
  return { status: response.status, body: (await response.json()) as { code: string; msg: string | null } }
}

describe("README shared replay guard examples", () => {
  const receivers: Array<Receiver> = []
  const stops: Array<() => Promise<void>> = []
  beforeAll(() => {
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: join(packageDir, "tsconfig.json"),
        include: [...examples.keys()].map(exampleFile),
        compilerOptions: {
          noEmit: true,
          typeRoots: [dirname(dirname(require.resolve("@types/node/package.json")))],
          paths: {
            "@pc/client": [join(packageDir, "src/index.ts")],
            "@pc/client/promise": [join(packageDir, "src/Promise.ts")],
            "@pc/client/replay-sql": [join(packageDir, "src/replay-sql.ts")],
            "@pc/client/replay-redis": [join(packageDir, "src/replay-redis.ts")]
          }
        }
      })
    )
    for (const [name, code] of examples) writeFileSync(exampleFile(name), code)
  })
  afterAll(async () => {
    for (const receiver of receivers) receiver.child.kill("SIGKILL")
    await Promise.all(stops.map((stop) => stop()))
    for (const name of examples.keys()) rmSync(exampleFile(name), { force: true })
    rmSync(tsconfig, { force: true })
  })

  it("are the redis and sql blocks, and type-check under the package's strict settings", async () => {
    expect([...readmeBlocks.keys()]).toEqual(["redis", "sql"])
    const tsc = spawn(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", tsconfig], { cwd: packageDir })
    let output = ""
    tsc.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
    })
    const code = await new Promise<number | null>((resolve) => tsc.once("close", resolve))
    expect(code, output).toBe(0)
  }, 90_000)

  const store = {
    redis: async () => {
      const server = await startRedis()
      stops.push(server.stop)
      return { REDIS_URL: server.url }
    },
    sql: async () => {
      const server = await startPostgres()
      stops.push(server.stop)
      return { DATABASE_URL: server.url }
    },
    "sql-mysql": async () => {
      const server = await startMariadb()
      stops.push(server.stop)
      return { DATABASE_URL: server.url }
    }
  }

  it.each(["redis", "sql", "sql-mysql"] as const)(
    "%s: two receivers on one store accept a delivery once, and a fresh delivery again",
    async (name) => {
      const env = { ...(await store[name]()), PC_PLATFORM_KEY: keyOf("platform-sandbox-v1").publicSpkiPem }
      const [first, second] = await Promise.all([
        startReceiver(exampleFile(name), env),
        startReceiver(exampleFile(name), env)
      ])
      receivers.push(first!, second!)
      const eventId = `evt_${name.replace("-", "_")}`
      const body = eventBody({ eventId })
      const headers = await signCallback({ key: "platform-sandbox-v1", timestamp: Date.now(), body, appKey: APP_KEY })
      expect(await post(first!.url, headers, body)).toMatchObject({ status: 200, body: { code: "SUCCESS" } })
      // The same captured bytes, replayed to the other instance.
      const replay = await post(second!.url, headers, body)
      expect(replay).toMatchObject({ status: 401, body: { code: "signError" } })
      expect(replay.body.msg).toBe("signature verification failed: Replayed")
      // The service's own redelivery is signed afresh with a new X-R-Ts: it passes anywhere.
      const again = await signCallback({ key: "platform-sandbox-v1", timestamp: Date.now() + 1, body, appKey: APP_KEY })
      expect(await post(second!.url, again, body)).toMatchObject({ status: 200 })
      // Each receiver prints its verified event after it has answered: wait for the line.
      const verified = new RegExp(`callback verified:? order\\.paid M-1001 ${eventId}`)
      for (const receiver of [first!, second!]) {
        await until(
          () => (verified.test(receiver.output()) ? true : undefined),
          "the receiver to print the verified event",
          {
            timeoutMs: 30_000,
            intervalMs: 20
          }
        )
      }
    },
    90_000
  )
})
