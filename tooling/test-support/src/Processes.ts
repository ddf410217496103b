// Commands run as a user runs them, each in its own process group (`detached`), so that whatever it
// starts (npx -> sh -> node, pnpm -> sh -> node) can be ended with it: `killAll()` in an afterEach
// or afterAll hook kills every group still there, also after a failed assertion, and the test
// process kills them as it exits.
import { type ChildProcess, spawn } from "node:child_process"

/** How a command is started: its folder, its whole environment (default `process.env`), its standard input. */
export interface StartOptions {
  readonly cwd?: string
  readonly env?: NodeJS.ProcessEnv
  /** Written to standard input, which is then closed; without it standard input is /dev/null. */
  readonly input?: string
}

/** What a finished command printed and how it ended. */
export interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** A long-running command (a server) in its own process group. */
export interface Running {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** stdout then stderr, so far. */
  readonly output: () => string
  /** Resolves with its exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>
  /** Resolves with the first complete stdout line `match` accepts; rejects if it exits first. */
  readonly waitForLine: (match: (line: string) => boolean, what: string) => Promise<string>
  /** Resolves with the first match of `pattern` in its output; rejects if it exits first. */
  readonly waitForOutput: (pattern: RegExp, what: string) => Promise<RegExpExecArray>
  /** Sends `signal` (SIGTERM) to its whole group; false when the group is gone. */
  readonly kill: (signal?: NodeJS.Signals) => boolean
}

/** Process groups started here and not known to be gone. */
const groups = new Set<number>()

const killGroup = (pid: number | undefined, signal: NodeJS.Signals): boolean => {
  if (pid === undefined) return false
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    return false
  }
}

/**
 * Kills every process group started by `run` or `background` that is still there (SIGKILL).
 *
 * @example
 * ```ts
 * afterEach(killAll)
 * ```
 */
export const killAll = (): void => {
  for (const pid of groups) killGroup(pid, "SIGKILL")
  groups.clear()
}

process.once("exit", killAll)

const start = (
  command: string,
  args: ReadonlyArray<string>,
  { cwd, env, input }: StartOptions,
  { endGroupOnExit = false } = {}
) => {
  const child = spawn(command, args, {
    cwd,
    env: env ?? process.env,
    detached: true,
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"]
  })
  if (child.pid !== undefined) groups.add(child.pid)
  let stdout = ""
  let stderr = ""
  const listeners = new Set<() => void>()
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
    for (const listener of listeners) listener()
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
    for (const listener of listeners) listener()
  })
  if (input !== undefined) child.stdin!.end(input)
  // What a command run to its end started and left behind holds its output pipes open: it ends
  // with the command, so that "close" (all output read) comes.
  if (endGroupOnExit) child.once("exit", () => killGroup(child.pid, "SIGKILL"))
  const closed = new Promise<Finished>((resolve, reject) => {
    child.once("error", reject)
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  return { child, closed, listeners, stdout: () => stdout, stderr: () => stderr }
}

/**
 * Runs a command to its end; what it leaves behind in its group ends with it, and after
 * `timeoutMs` (default 120 s) the whole group is killed.
 *
 * @example
 * ```ts
 * const { code, stdout } = await run("node", ["--version"])
 * ```
 */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: StartOptions & { readonly timeoutMs?: number } = {}
): Promise<Finished> => {
  const started = start(command, args, options, { endGroupOnExit: true })
  const timer = setTimeout(() => killGroup(started.child.pid, "SIGKILL"), options.timeoutMs ?? 120_000)
  return started.closed.finally(() => {
    clearTimeout(timer)
    if (started.child.pid !== undefined) groups.delete(started.child.pid)
  })
}

/**
 * Runs a command that must succeed; rejects with its output otherwise.
 *
 * @example
 * ```ts
 * await ok("npm", ["init", "-y"], { cwd: project })
 * ```
 */
export const ok = async (
  command: string,
  args: ReadonlyArray<string>,
  options: StartOptions & { readonly timeoutMs?: number } = {}
): Promise<Finished> => {
  const finished = await run(command, args, options)
  if (finished.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${finished.code ?? finished.signal}\n${finished.stdout}\n${finished.stderr}`
    )
  }
  return finished
}

/**
 * Starts a long-running command in its own process group; `killAll()` ends it if nothing else does.
 *
 * @example
 * ```ts
 * const mock = background("npx", ["pc", "mock", "--port", String(port)], { cwd: project })
 * await mock.waitForOutput(/listening on (http:\S+)/, "the ready line")
 * ```
 */
export const background = (command: string, args: ReadonlyArray<string>, options: StartOptions = {}): Running => {
  const started = start(command, args, options)
  const exited = started.closed.then(({ code }) => code)
  const output = () => started.stdout() + started.stderr()
  const waitFor = <A>(find: () => A | undefined, what: string) =>
    new Promise<A>((resolve, reject) => {
      const check = () => {
        const found = find()
        if (found === undefined) return
        started.listeners.delete(check)
        resolve(found)
      }
      started.listeners.add(check)
      check()
      void started.closed.then(
        () => {
          check()
          if (started.listeners.delete(check))
            reject(new Error(`${command} exited before ${what}:\n${started.stdout()}\n${started.stderr()}`))
        },
        (error: unknown) => {
          if (started.listeners.delete(check)) reject(error)
        }
      )
    })
  return {
    child: started.child,
    stdout: started.stdout,
    stderr: started.stderr,
    output,
    exited,
    waitForLine: (match, what) => waitFor(() => started.stdout().split("\n").slice(0, -1).find(match), what),
    waitForOutput: (pattern, what) => waitFor(() => pattern.exec(output()) ?? undefined, what),
    kill: (signal = "SIGTERM") => killGroup(started.child.pid, signal)
  }
}
