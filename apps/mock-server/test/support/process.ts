// A child Node process whose stdout and stderr are collected as text, for the tests that run the
// mock as a real process (SIGKILL, SIGTERM, restarts, start-up output).
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

/**
 * The built `pc` bin (`apps/cli/dist/bin.js`), as merchants and `pnpm mock` run it: the process
 * tests start `node PC_BIN mock ...` (turbo builds @pc/cli before this package's tests).
 */
export const PC_BIN = fileURLToPath(new URL("../../../cli/dist/bin.js", import.meta.url))

/** A running child: its process, all it printed so far, and how it ended. */
export interface CollectedProcess {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

/** Runs `node ...args` in `cwd` (without the parent's NODE_OPTIONS), collecting what it prints. */
export const spawnNode = (args: ReadonlyArray<string>, cwd: string): CollectedProcess => {
  const child = spawn(process.execPath, args, {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  let output = ""
  const collect = (chunk: string) => {
    output += chunk
  }
  child.stdout!.setEncoding("utf8").on("data", collect)
  child.stderr!.setEncoding("utf8").on("data", collect)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  return { child, output: () => output, exited }
}
