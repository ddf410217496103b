// The repository's `pnpm pc` and `pnpm mock` build what is needed first: the build's output goes to
// stderr, so stdout carries only what pc prints (`pnpm -s pc orders create --json | jq`).
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const PNPM = `pnpm@${/^pnpm@(.+)$/.exec(JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")).packageManager)![1]}`
const run = promisify(execFile)

describe("pnpm pc in this repository", () => {
  it("prints turbo's banner on stderr only; with -s stdout is pc's output alone", async () => {
    const env = { ...process.env, NODE_OPTIONS: "" }
    const silent = await run("npx", ["-y", PNPM, "-s", "pc", "--version"], { cwd: ROOT, env, timeout: 300_000 })
    expect(silent.stdout.trim()).toBe("0.1.0")
    // CI=true drops turbo's version line; its task summary still names it (">>> FULL TURBO") or counts tasks.
    expect(silent.stderr).toMatch(/turbo|Tasks:/i)
    // Without -s pnpm names the script it runs (its own two lines); the build says nothing there.
    const plain = await run("npx", ["-y", PNPM, "pc", "--version"], { cwd: ROOT, env, timeout: 300_000 })
    expect(plain.stdout).not.toMatch(/turbo \d|Tasks:|Cached:|Packages in scope/)
    expect(plain.stdout.trimEnd().split("\n").at(-1)).toBe("0.1.0")
  }, 600_000)
})
