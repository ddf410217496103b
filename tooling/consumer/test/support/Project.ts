// A merchant's project in a temp folder outside the workspace: `npm init -y`, the packed tarballs
// installed with npm (no links, no workspace), commands run in it as a merchant would. Processes,
// polling and README blocks come from @pc/test-support.
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { merchantEnv, npmProject, ok as okIn, run as runIn } from "@pc/test-support"

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url))

const made: Array<string> = []

/** The npm cache of this run: every project's install shares it, nothing outside is touched. */
const cache = mkdtempSync(join(tmpdir(), "pc-consumer-npm-cache-"))
made.push(cache)

/** The environment of every command: no workspace variables leaking in, this run's npm cache. */
export const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
  merchantEnv({ npm_config_cache: cache, ...extra })

type Options = { readonly timeoutMs?: number; readonly env?: Record<string, string> }

/** Runs a command in `cwd` to its end (killed after `timeoutMs`). */
export const run = (command: string, args: ReadonlyArray<string>, cwd: string, options: Options = {}) =>
  runIn(command, args, inProject(cwd, options))

/** Runs a command that must succeed; fails with its output otherwise. */
export const ok = (command: string, args: ReadonlyArray<string>, cwd: string, options: Options = {}) =>
  okIn(command, args, inProject(cwd, options))

const inProject = (cwd: string, options: Options) => ({
  cwd,
  env: env(options.env),
  ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs })
})

/**
 * Every public package packed once (`pnpm pack-all`'s script), by package name. In a child process
 * awaited, never synchronously: a minute of blocked event loop fails the run ("Timeout calling
 * onTaskUpdate" from vitest's worker).
 */
export const packAll = async (): Promise<ReadonlyMap<string, string>> => {
  const dir = mkdtempSync(join(tmpdir(), "pc-packs-"))
  made.push(dir)
  await okIn(process.execPath, [join(ROOT, "scripts/pack-all.mjs"), dir], { cwd: ROOT, timeoutMs: 600_000 })
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
 * this run's npm cache where it has them (`--prefer-offline`), and better-sqlite3's native addon taken from
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

/**
 * Removes every project, pack folder and the npm cache this run made: asynchronously, since removing
 * seven node_modules and a cache takes long enough on a loaded machine to starve the test worker's
 * messages to vitest (it failed the run with "Timeout calling onTaskUpdate").
 */
export const removeAll = async (): Promise<void> => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
}

/** A fresh `npm init -y` project in a temp folder outside the workspace. */
export const newProject = async (name: string): Promise<string> => {
  const dir = await npmProject(`pc-consumer-${name}-`, env())
  made.push(dir)
  return dir
}

/** Writes a file into the project (its folder made as needed). */
export const write = (dir: string, file: string, text: string): string => {
  mkdirSync(dirname(join(dir, file)), { recursive: true })
  writeFileSync(join(dir, file), text)
  return join(dir, file)
}

export const readReadme = (path: string): string => readFileSync(join(ROOT, path), "utf8")
