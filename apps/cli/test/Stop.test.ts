// `kill` of a backgrounded mock stops it, however it was launched: the README's
// `npx -y pnpm@<version> mock` (npm exec, sh, pnpm, node), `pnpm pc mock` and the bin itself. The
// outer process gets SIGTERM; the port must close soon after, whoever passed the signal on or not.
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { accepting, freePort } from "@pc/test-support"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const PNPM = `pnpm@${/^pnpm@(.+)$/.exec(JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")).packageManager)![1]}`
const groups: Array<number> = []

afterEach(() => {
  // Each launch is its own process group: whatever a failed test left behind ends here.
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, "SIGKILL")
    } catch {}
  }
})

/** Polls until `check` holds; fails with `what` after `timeoutMs`. */
const until = async (check: () => Promise<boolean>, timeoutMs: number, what: string, child: ChildProcess) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms (pid ${child.pid})`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const launch = (command: string, args: ReadonlyArray<string>) => {
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  groups.push(child.pid!)
  let output = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk
  })
  return { child, output: () => output }
}

describe("SIGTERM to the outer process of a backgrounded mock", () => {
  it.each([
    ["npx pnpm mock (the README's command)", "npx", ["-y", PNPM, "mock"]],
    ["npx pnpm pc mock", "npx", ["-y", PNPM, "pc", "mock"]],
    ["the bin itself", process.execPath, ["apps/cli/dist/bin.js", "mock"]],
    // A launcher that passes no signal on, as npx's `sh -c` does.
    ["a shell that does not pass the signal on", "sh", ["-c", 'node apps/cli/dist/bin.js mock "$@"; true', "sh"]]
  ])("%s: the port closes soon after", async (_, command, args) => {
    const port = await freePort()
    const mock = launch(command, [...args, "--port", String(port), "--db", ":memory:"])
    const ready = `listening on http://127.0.0.1:${port}`
    await until(async () => mock.output().includes(ready), 120_000, "the mock did not get ready", mock.child)
    expect(await accepting(port)).toBe(true)

    mock.child.kill("SIGTERM")
    await until(async () => !(await accepting(port)), 60_000, `port ${port} still open after SIGTERM`, mock.child)
    // Every stop says why: the signal, or which launcher went away.
    await until(async () => mock.output().includes("the mock stopped"), 10_000, "no stop line", mock.child)
    expect(mock.output()).toMatch(/stopping the mock: (SIGTERM|the process that launched it \(.+, pid \d+\) ended)\n/)
  })
})

/**
 * The exit of a child process (its code, or the signal that ended it), once every process that
 * holds its output (the mock outlives npm exec by a moment) has closed it.
 */
const closed = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal }))
  )

describe("Ctrl-C on the README's start command", () => {
  // A terminal's Ctrl-C sends SIGINT to the whole foreground process group: npm exec, pnpm, the
  // shell and the mock get it at once, and pnpm passes it on once more. With the dashboard open
  // (its /dev/events stream never ends by itself) the mock must still stop, in its own words.
  it("ends in the mock's own stop lines, no package manager error, exit 0 or 130", async () => {
    const port = await freePort()
    const mock = launch("npx", ["-y", PNPM, "mock", "--port", String(port), "--db", ":memory:"])
    const done = closed(mock.child)
    await until(async () => mock.output().includes(`http://127.0.0.1:${port}`), 120_000, "not ready", mock.child)
    const events = await fetch(`http://127.0.0.1:${port}/dev/events`)
    expect(events.status).toBe(200)

    process.kill(-mock.child.pid!, "SIGINT")
    const exit = await done
    // npm exec ends by the signal itself, which a shell reports as 130.
    expect(exit.code === 0 || exit.code === 130 || exit.signal === "SIGINT").toBe(true)
    expect(mock.output()).not.toContain("ELIFECYCLE")
    expect(mock.output()).toContain("stopping the mock: Ctrl-C (SIGINT)\n")
    expect(mock.output().trimEnd().split("\n").at(-1)).toBe("the mock stopped")
    await events.body?.cancel().catch(() => undefined)
  })
})
