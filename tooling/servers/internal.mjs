// What both throwaway servers share: a free loopback port, a temporary directory, waiting for a
// child to say it is ready, and stopping it (also when the test process exits without stopping it).
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
// By path, not by package name: scripts/ensure-system-packages.mjs loads this folder before the
// first install, when no workspace package is linked into node_modules yet.
import { freePort } from "../test-support/Net.mjs"

/** A port that was free a moment ago (the caller retries when a server lost the race for it). */
export { freePort }

export const tempDir = (prefix) => mkdtempSync(join(tmpdir(), prefix))

const running = new Set()
/** The temporary directory of each running child, removed with it. */
const dirs = new Map()
// A test process that ends without stop() (a failed beforeAll, a thrown test) must not leave
// servers behind: kill whatever is still running as it exits, and remove their directories. (A
// process killed by a signal runs no handler: its servers are left running, see the README.)
process.once("exit", () => {
  for (const child of running) {
    child.kill("SIGKILL")
    const dir = dirs.get(child)
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
})

/** Ties `dir` to `child`, so that the exit handler removes it with the child. */
export const ownDir = (child, dir) => {
  dirs.set(child, dir)
}

/**
 * Spawns `command` and resolves once a line of its output matches `ready`; rejects with its output
 * when it exits first or stays silent for `timeoutMs`.
 */
export const spawnUntilReady = (command, args, { ready, timeoutMs = 30_000, ...options }) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] })
    running.add(child)
    let output = ""
    let settled = false
    const settle = (error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error === undefined) resolve(child)
      else {
        child.kill("SIGKILL")
        reject(error)
      }
    }
    const timer = setTimeout(
      () => settle(new Error(`${command} was not ready after ${timeoutMs} ms:\n${output}`)),
      timeoutMs
    )
    const onData = (chunk) => {
      output += chunk.toString("utf8")
      if (ready.test(output)) settle()
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("error", (error) => settle(error))
    child.once("exit", (code, signal) => {
      running.delete(child)
      settle(new Error(`${command} exited (${signal ?? code}) before it was ready:\n${output}`))
    })
  })

/**
 * Sends `signal`, waits for the exit (SIGKILL after `graceMs`), then removes `dir` (unless
 * `keepDir`: a server stopped to be started again on the same data).
 */
export const stopChild = (child, dir, signal, graceMs = 10_000, { keepDir = false } = {}) =>
  new Promise((resolve) => {
    const done = () => {
      running.delete(child)
      dirs.delete(child)
      if (!keepDir) rmSync(dir, { recursive: true, force: true })
      resolve()
    }
    if (child.exitCode !== null || child.signalCode !== null) return done()
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    child.once("exit", () => {
      clearTimeout(timer)
      done()
    })
    child.kill(signal)
  })

/** Runs `start(port)` on a fresh free port, again when another process took the port first. */
export const onFreePort = async (start, isPortTaken) => {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    try {
      return await start(port)
    } catch (error) {
      if (attempt >= 5 || !isPortTaken(error)) throw error
    }
  }
}
