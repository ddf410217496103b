// How the tests run `pc`: as a separate process, the way a user runs it: the built bin
// (`dist/bin.js` on plain Node, as npm installs it), which turbo builds before these tests.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url))

/** The program and arguments that start `pc`. */
export const pcCommand = (args: ReadonlyArray<string>): [string, Array<string>] => [
  process.execPath,
  [join(ROOT, "apps/cli/dist/bin.js"), ...args]
]

/** A fresh profile directory, so no test reads another's (or the user's) settings. */
export const freshConfigDir = (): string => mkdtempSync(join(tmpdir(), "pc-cli-config-"))

/** The environment of a `pc` process: no PC_* variables from outside, then the given ones. */
const envOf = (env: Readonly<Record<string, string>>): NodeJS.ProcessEnv => {
  const clean: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("PC_")) clean[key] = value
  return { ...clean, NODE_OPTIONS: "", NO_COLOR: "1", ...env }
}

export interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `pc ...args` to the end. */
export const pc = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Readonly<Record<string, string>>; readonly cwd?: string; readonly input?: string } = {}
): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const [command, argv] = pcCommand(args)
    const child = spawn(command, argv, {
      cwd: options.cwd ?? ROOT,
      env: envOf(options.env ?? {}),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    child.once("error", reject)
    child.once("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.input ?? "")
  })

/** Runs `pc ...args --json` and parses its stdout as one JSON document. */
export const pcJson = async <A = Record<string, unknown>>(
  args: ReadonlyArray<string>,
  options: Parameters<typeof pc>[1] = {}
): Promise<Ran & { readonly json: A }> => {
  const ran = await pc([...args, "--json"], options)
  let json: A
  try {
    json = JSON.parse(ran.stdout) as A
  } catch {
    throw new Error(`pc ${args.join(" ")} --json did not print one JSON document:\n${ran.stdout}\n${ran.stderr}`)
  }
  return { ...ran, json }
}

/** A long-running `pc` (listen): its output so far, lines as they come, and how it ended. */
export interface Running {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the first stdout line `match` accepts. */
  readonly waitForLine: (match: (line: string) => boolean, what: string) => Promise<string>
  readonly exited: Promise<number | null>
}

export const pcBackground = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Readonly<Record<string, string>>; readonly cwd?: string } = {}
): Running => {
  const [command, argv] = pcCommand(args)
  const child = spawn(command, argv, {
    cwd: options.cwd ?? ROOT,
    env: envOf(options.env ?? {}),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  const waiters = new Set<() => void>()
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
    for (const waiter of waiters) waiter()
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  const waitForLine = (match: (line: string) => boolean, what: string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = stdout.split("\n").find((line, i, all) => i < all.length - 1 && match(line))
        if (found !== undefined) {
          waiters.delete(check)
          resolve(found)
        }
      }
      waiters.add(check)
      check()
      void exited.then(() => {
        if (waiters.delete(check)) reject(new Error(`pc exited before ${what}:\n${stdout}\n${stderr}`))
      })
    })
  return { child, stdout: () => stdout, stderr: () => stderr, waitForLine, exited }
}
