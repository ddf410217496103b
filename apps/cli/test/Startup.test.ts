// A request that arrives while the mock is starting is answered once it is ready or refused, never
// accepted and left hanging (CONTRACT.md "Running the mock"): from the moment of spawn, requests
// to /healthz one after another, each with its own time limit, until one succeeds.
import { spawn } from "node:child_process"
import { request } from "node:http"
import { fileURLToPath } from "node:url"
import { afterEach, expect, it } from "vitest"
import { freePort } from "@pc/test-support"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const cleanups: Array<() => void> = []

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

type Outcome = "answered" | "refused" | "hung" | `error ${string}`

/** One GET /healthz: answered (any status), refused (nothing listens yet) or hung past `limitMs`. */
const healthz = (port: number, limitMs: number): Promise<Outcome> =>
  new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/healthz", agent: false }, (response) => {
      response.resume()
      response.once("end", () =>
        resolve(response.statusCode === 200 ? "answered" : `error status ${response.statusCode}`)
      )
    })
    req.setTimeout(limitMs, () => {
      resolve("hung")
      req.destroy()
    })
    req.once("error", (error: NodeJS.ErrnoException) =>
      resolve(error.code === "ECONNREFUSED" ? "refused" : `error ${error.code ?? error.message}`)
    )
    req.end()
  })

it("every request from the moment of spawn is answered or refused, none hangs", async () => {
  const port = await freePort()
  const child = spawn(process.execPath, ["apps/cli/dist/bin.js", "mock", "--port", String(port), "--db", ":memory:"], {
    cwd: ROOT,
    stdio: "ignore",
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  cleanups.push(() => child.kill("SIGKILL"))
  const outcomes: Array<Outcome> = []
  // A hung request is one the mock accepted and never answered: 5 s is far beyond an answer on
  // loopback, and far below a test timeout, so a hang fails here with the whole record.
  while (!outcomes.includes("answered") && outcomes.length < 20_000 && child.exitCode === null) {
    outcomes.push(await healthz(port, 5_000))
  }
  expect(outcomes.filter((outcome) => outcome !== "refused" && outcome !== "answered")).toEqual([])
  expect(outcomes.at(-1)).toBe("answered")
  // The loop did start before the mock listened, so the window the test is about was exercised.
  expect(outcomes.filter((outcome) => outcome === "refused").length).toBeGreaterThan(0)
})
