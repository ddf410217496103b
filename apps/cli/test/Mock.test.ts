// `pc mock` as a process, as a user runs it (the built bin): the flags are parsed here and the
// configuration checked by the mock's `check` (a refused one exits 2 with its reason), and a valid
// one serves until SIGINT, then exits 0.
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const children = new Set<ChildProcess>()

afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  children.clear()
})

/** Runs `pc mock ...args` from the repository root; resolves its output so far and how it ended. */
const pc = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) => {
  const child = spawn(process.execPath, ["apps/cli/dist/bin.js", "mock", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "", ...env }
  })
  children.add(child)
  let output = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  return { child, output: () => output, exited }
}

/** The URL `pc mock` prints once it listens; throws if it exits or is not ready within 20 s. */
const listeningUrl = async (run: ReturnType<typeof pc>): Promise<string> => {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const url = /listening on (http:\/\/\S+)/.exec(run.output())?.[1]
    if (url !== undefined) return url
    if (run.child.exitCode !== null) throw new Error(`pc mock exited:\n${run.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`pc mock did not get ready:\n${run.output()}`)
}

describe("pc mock", () => {
  it.each([
    [["--callback-backoff-ms", "0"], /--callback-backoff-ms takes a whole number from 1/],
    [["--callback-backoff-ms", "-5"], /--callback-backoff-ms takes a whole number from 1/],
    [["--port", "70000"], /--port takes a whole number from 0 to 65535/],
    [["--public-url", "ftp://proxy.example/"], /--public-url: only http and https URLs/],
    [["--order-ttl-ms", "0"], /--order-ttl-ms/],
    [["--dev-token", "short"], /--dev-token must be at least 16 characters/],
    [["--port", "abc"], /integer/],
    [["--callback-timeout-ms", "9999999999"], /--callback-timeout-ms/],
    [["--public-url", "http://u:p@proxy.example/"], /--public-url: must not contain a user name or password/],
    [["--host", ""], /--host must name an address/],
    [["--nope", "1"], /nope/]
  ])("refuses %j with its reason and exit code 2", async (args, reason) => {
    const run = pc(["--env", "production", "--db", ":memory:", ...args])
    expect(await run.exited).toEqual({ code: 2, signal: null })
    expect(run.output()).toMatch(reason)
    expect(run.output()).not.toContain("listening on")
  })

  it("takes every flag of pnpm mock, serves, and stops cleanly on SIGINT", async () => {
    const run = pc([
      "--env=production",
      "--port=0",
      "--db=:memory:",
      "--public-url=https://proxy.example/pc/",
      "--callback-backoff-ms=500",
      "--callback-timeout-ms=2000",
      "--order-ttl-ms=60000",
      "--body-limit-bytes=2048",
      "--rate-limit-per-minute=10",
      "--dev-token=a-developer-token-for-this-test"
    ])
    const url = await listeningUrl(run)
    expect(run.output()).toContain("public URL:           https://proxy.example/pc\n")
    expect(run.output()).toContain("environment:          production")
    const health = await fetch(`${url}/healthz`)
    expect(await health.json()).toMatchObject({ code: "SUCCESS", data: { environment: "production" } })
    expect(run.output()).toContain("developer token:      a-developer-token-for-this-test\n")
    // The developer token of the flag is required, on loopback too.
    const refused = await fetch(`${url}/dev/platform-keys`)
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ code: "unauthorized" })
    // The body limit of the flag applies: 2049 bytes are too many.
    const big = await fetch(`${url}/dev/merchants`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer a-developer-token-for-this-test" },
      body: JSON.stringify({ publicKeyPem: "x".repeat(2100) })
    })
    expect(big.status).toBe(413)

    run.child.kill("SIGINT")
    expect(await run.exited).toEqual({ code: 0, signal: null })
    expect(run.output()).toContain("stopping the mock")
  })

  it("takes its address, database and token from PC_MOCK_* when the flags are not given, a flag winning", async () => {
    const run = pc(["--db", ":memory:"], {
      PC_MOCK_HOST: "127.0.0.1",
      PC_MOCK_PORT: "0",
      PC_MOCK_DB: "./never-this-file.sqlite",
      PC_MOCK_PUBLIC_URL: "https://mock.example/team/",
      PC_MOCK_DEV_TOKEN: "a-developer-token-from-the-environment"
    })
    const url = await listeningUrl(run)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(url).not.toMatch(/:4010$/)
    expect(run.output()).toContain("public URL:           https://mock.example/team\n")
    expect(run.output()).toContain("database:             :memory:\n")
    expect(run.output()).toContain("developer token:      a-developer-token-from-the-environment\n")
    expect((await fetch(`${url}/dev/platform-keys`)).status).toBe(401)
    const keys = await fetch(`${url}/dev/platform-keys`, {
      headers: { authorization: "Bearer a-developer-token-from-the-environment" }
    })
    expect(keys.status).toBe(200)
    run.child.kill("SIGTERM")
    expect(await run.exited).toEqual({ code: 0, signal: null })
  })

  it("serves on when the reader of its output goes away (pc mock | head -3), and still stops cleanly", async () => {
    const run = pc(["--env", "sandbox", "--port", "0", "--db", ":memory:"])
    const url = await listeningUrl(run)
    const { child } = run
    const printed = run.output().length
    // As `head` does once it has its lines: the read end of the mock's stdout is closed.
    child.stdout!.destroy()
    // Each request logs a line; batches are written 25 ms apart, each onto the closed pipe (EPIPE).
    for (let i = 0; i < 5; i++) {
      const health = await fetch(`${url}/healthz`)
      expect(health.status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 60))
    }
    expect(child.exitCode).toBeNull()
    child.kill("SIGTERM")
    expect(await run.exited).toEqual({ code: 0, signal: null })
    // Only stderr reaches the output now: nothing there about the broken pipe.
    expect(run.output().slice(printed)).not.toMatch(/EPIPE|Error/)
  })
})
