// Commands run as a user runs them, each in its own process group (`detached`), so that whatever it
// starts (npx -> sh -> node, pnpm -> sh -> node) can be ended with it: `killAll()` in an afterEach
// or afterAll hook kills every group still there, also after a failed assertion, and the test
// process kills them as it exits.
import { spawn } from "node:child_process"

/** Process groups started here and not known to be gone. */
const groups = new Set()

const killGroup = (pid, signal) => {
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    return false
  }
}

/** Kills every process group started by `run` or `background` that is still there (SIGKILL). */
export const killAll = () => {
  for (const pid of groups) killGroup(pid, "SIGKILL")
  groups.clear()
}

process.once("exit", killAll)

const start = (command, args, { cwd, env, input }, { endGroupOnExit = false } = {}) => {
  const child = spawn(command, args, {
    cwd,
    env: env ?? process.env,
    detached: true,
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"]
  })
  if (child.pid !== undefined) groups.add(child.pid)
  let stdout = ""
  let stderr = ""
  const listeners = new Set()
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    stdout += chunk
    for (const listener of listeners) listener()
  })
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk
    for (const listener of listeners) listener()
  })
  if (input !== undefined) child.stdin.end(input)
  // What a command run to its end started and left behind holds its output pipes open: it ends
  // with the command, so that "close" (all output read) comes.
  if (endGroupOnExit) child.once("exit", () => killGroup(child.pid, "SIGKILL"))
  const closed = new Promise((resolve, reject) => {
    child.once("error", reject)
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  return { child, closed, listeners, stdout: () => stdout, stderr: () => stderr }
}

/**
 * Runs a command to its end; what it leaves behind in its group ends with it, and after
 * `timeoutMs` (default 120 s) the whole group is killed.
 */
export const run = (command, args, options = {}) => {
  const started = start(command, args, options, { endGroupOnExit: true })
  const timer = setTimeout(() => killGroup(started.child.pid, "SIGKILL"), options.timeoutMs ?? 120_000)
  return started.closed.finally(() => {
    clearTimeout(timer)
    groups.delete(started.child.pid)
  })
}

/** Runs a command that must succeed; rejects with its output otherwise. */
export const ok = async (command, args, options = {}) => {
  const finished = await run(command, args, options)
  if (finished.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${finished.code ?? finished.signal}\n${finished.stdout}\n${finished.stderr}`
    )
  }
  return finished
}

/** A long-running command (a server), its output so far, and ways to wait for it. */
export const background = (command, args, options = {}) => {
  const started = start(command, args, options)
  const exited = started.closed.then(({ code }) => code)
  const output = () => started.stdout() + started.stderr()
  const waitFor = (find, what) =>
    new Promise((resolve, reject) => {
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
        (error) => {
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
