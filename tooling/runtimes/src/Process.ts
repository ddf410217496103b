// A child process whose output is kept for the test's failure messages, and stopped by its own id:
// the runtimes serving a bundle and the README recipes running under tsx are both one of these.
import { type ChildProcess, spawn } from "node:child_process"
import type { Readable } from "node:stream"

/** A started program: its process, what it printed so far, and how to end it. */
export interface Program {
  readonly child: ChildProcess
  readonly stdout: Readable
  /** Standard output and standard error as they came, interleaved. */
  output(): string
  /** SIGTERM, then resolves once the process is gone. */
  stop(): Promise<void>
}

/** Starts `binary` with `args`; `extraFds` pipes descriptors 3… too (workerd's control descriptor). */
export const startProgram = (
  binary: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly extraFds?: number }
): Program => {
  const child = spawn(binary, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe", ...Array.from({ length: options.extraFds ?? 0 }, () => "pipe" as const)]
  })
  const { stdout, stderr } = child
  if (stdout === null || stderr === null) throw new Error("spawned with piped stdio, yet it has none")
  let output = ""
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8")
  }
  stdout.on("data", collect)
  stderr.on("data", collect)
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return {
    child,
    stdout,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      await exited
    }
  }
}
