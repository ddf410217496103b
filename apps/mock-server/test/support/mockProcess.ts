// The mock as its own process (the built `pc mock`, as `pnpm mock` runs it), on a free port, with
// its output collected; stopped by signal.
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { PC_BIN } from "./process.js"
import { until } from "@pc/test-support"

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url))

export interface MockProcess {
  readonly child: ChildProcess
  readonly url: string
  readonly output: () => string
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

const children = new Set<ChildProcess>()
/** Kills every mock process still running (after a test, whatever happened in it). */
export const killAllMocks = () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  children.clear()
}

/** Starts `pc mock` with `args` (plus `--port 0`) and resolves once it says it listens. */
export const spawnMock = async (args: ReadonlyArray<string>, timeoutMs = 150_000): Promise<MockProcess> => {
  const child = spawn(process.execPath, [PC_BIN, "mock", "--port", "0", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  children.add(child)
  let output = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  const url = await until(
    () => {
      const match = /Payment Connect mock listening on (http:\/\/[^\s]+)/.exec(output)
      if (match !== null) return match[1]!
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the mock exited before it was ready:\n${output}`)
      return undefined
    },
    "the mock's ready line",
    { timeoutMs, intervalMs: 20 }
  )
  return { child, url, output: () => output, exited }
}
