// A merchant's project in a temp folder outside the workspace: `npm init -y`, the packed tarballs
// installed with npm (no links, no workspace), commands run in it as a merchant would.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url))

/** What a finished command printed and how it ended. */
export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** The environment of every command: no workspace variables leaking into the merchant's project. */
const cleanEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|PNPM_|VITEST|TURBO_|NODE_OPTIONS$|INIT_CWD$)/i.test(key)) env[key] = value
  }
  return { ...env, npm_config_fund: "false", npm_config_audit: "false", npm_config_update_notifier: "false" }
}

/** Runs a command to its end (killed after `timeoutMs`). */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  options: { readonly timeoutMs?: number; readonly env?: Record<string, string> } = {}
): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...cleanEnv(), ...options.env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000)
    child.once("error", reject)
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** Runs a command that must succeed; fails with its output otherwise. */
export const ok = async (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  options: { readonly timeoutMs?: number; readonly env?: Record<string, string> } = {}
): Promise<Finished> => {
  const finished = await run(command, args, cwd, options)
  if (finished.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${finished.code}\n${finished.stdout}\n${finished.stderr}`)
  }
  return finished
}

/** A long-running command (a server), with its output so far. */
export const background = (command: string, args: ReadonlyArray<string>, cwd: string) => {
  const child: ChildProcess = spawn(command, args, { cwd, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, output: () => output, exited }
}

/** Every public package packed once (`pnpm pack-all`'s script), by package name. */
export const packAll = (): ReadonlyMap<string, string> => {
  const dir = mkdtempSync(join(tmpdir(), "pc-packs-"))
  made.push(dir)
  execFileSync(process.execPath, [join(ROOT, "scripts/pack-all.mjs"), dir], { cwd: ROOT, stdio: "ignore" })
  const tarballs = new Map<string, string>()
  for (const file of readdirSync(dir)) {
    const manifest = execFileSync("tar", ["-xzOf", join(dir, file), "package/package.json"], { encoding: "utf8" })
    tarballs.set((JSON.parse(manifest) as { name: string }).name, join(dir, file))
  }
  return tarballs
}

/** The @pc packages a tarball needs, transitively (what a registry would install with it). */
export const internalClosure = (tarballs: ReadonlyMap<string, string>, names: ReadonlyArray<string>): Array<string> => {
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name) || !tarballs.has(name)) return
    seen.add(name)
    const manifest = JSON.parse(
      execFileSync("tar", ["-xzOf", tarballs.get(name)!, "package/package.json"], { encoding: "utf8" })
    ) as { dependencies?: Record<string, string> }
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency)
  }
  for (const name of names) visit(name)
  return [...seen]
}

/**
 * `npm i` as a merchant runs it, with two savings for a test on a slow machine: packuments from
 * npm's cache where it has them (`--prefer-offline`), and better-sqlite3's native addon taken from
 * the workspace's build of the same version instead of compiling it again (install scripts off).
 */
export const npmInstall = async (dir: string, specs: ReadonlyArray<string>): Promise<void> => {
  await ok("npm", ["i", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...specs], dir, {
    timeoutMs: 400_000
  })
  const installed = join(dir, "node_modules/better-sqlite3")
  if (!existsSync(installed)) return
  const version = (file: string) => (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version
  const workspace = dirname(
    createRequire(join(ROOT, "apps/mock-server/package.json")).resolve("better-sqlite3/package.json")
  )
  if (version(join(installed, "package.json")) === version(join(workspace, "package.json"))) {
    mkdirSync(join(installed, "build/Release"), { recursive: true })
    copyFileSync(
      join(workspace, "build/Release/better_sqlite3.node"),
      join(installed, "build/Release/better_sqlite3.node")
    )
  } else {
    await ok("npm", ["rebuild", "better-sqlite3"], dir, { timeoutMs: 600_000 })
  }
}

const made: Array<string> = []

/** Removes every project and pack folder this run made. */
export const removeAll = (): void => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** A fresh `npm init -y` project in a temp folder outside the workspace. */
export const newProject = async (name: string): Promise<string> => {
  const dir = mkdtempSync(join(tmpdir(), `pc-consumer-${name}-`))
  made.push(dir)
  mkdirSync(dir, { recursive: true })
  await ok("npm", ["init", "-y"], dir)
  return dir
}

/** Writes a file into the project. */
export const write = (dir: string, file: string, text: string): string => {
  writeFileSync(join(dir, file), text)
  return join(dir, file)
}

/** The fenced block of `lang` after `<!-- example: name -->` in a README. */
export const readmeExample = (readme: string, name: string): string => {
  const match = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`(?:ts|js)\\n([\\s\\S]*?)\`\`\``).exec(readme)
  if (match === null) throw new Error(`no example "${name}"`)
  return match[1]!
}

/** The package names of the first `npm i ...` line of a README. */
export const installLine = (readme: string): ReadonlyArray<string> => {
  const line = /^npm i(?:nstall)? (.+)$/m.exec(readme)?.[1]
  if (line === undefined) throw new Error("the README has no npm i line")
  return line
    .split(" #")[0]!
    .split(/\s+/)
    .filter((word) => word !== "" && !word.startsWith("-"))
}

export const readReadme = (path: string): string => readFileSync(join(ROOT, path), "utf8")
