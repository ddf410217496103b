// A merchant's project: an `npm init -y` folder outside the workspace, and the environment its
// commands run in (none of the workspace's npm, pnpm, turbo or vitest variables leaking in).
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ok } from "./Processes.js"

let merchantNodeDir: string | undefined
/**
 * A folder to put first on a merchant's PATH so that `node` (and npm's and npx's scripts) is a Node
 * with node:sqlite, or undefined when this Node has it. On Node 20 the mock needs better-sqlite3,
 * which the READMEs' install lines for current Nodes do not add: the merchant's commands run on
 * Node 24 from the npm registry instead (the Node 20 story is the workspace's own suites).
 */
const merchantNodeBin = (): string | undefined => {
  if (process.getBuiltinModule?.("node:sqlite") !== undefined) return undefined
  if (merchantNodeDir === undefined) {
    const node24 = execFileSync("npx", ["-y", "node@24", "-p", "process.execPath"], {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" }
    }).trim()
    // One folder per Node binary, shared by the test processes that ask at the same time.
    const dir = join(tmpdir(), `pc-merchant-node-${node24.replace(/\W+/g, "-").slice(-60)}`)
    mkdirSync(dir, { recursive: true })
    try {
      symlinkSync(node24, join(dir, "node"))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !existsSync(join(dir, "node"))) throw error
    }
    merchantNodeDir = dir
  }
  return merchantNodeDir
}

let globalNpmrc: string | undefined
/**
 * The global npmrc of this Node's npm (`/usr/etc/npmrc` for a system Node), where a machine keeps
 * settings such as `cafile`. npm finds its global npmrc beside the Node that runs it: run by the Node
 * 24 from the npm registry it would look in that package's folder, lose the machine's `cafile` and
 * refuse a TLS-intercepting proxy's certificate (SELF_SIGNED_CERT_IN_CHAIN), so it is named.
 */
const machineGlobalNpmrc = (): string => {
  globalNpmrc ??= execFileSync("npm", ["config", "get", "globalconfig"], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" }
  }).trim()
  return globalNpmrc
}

/**
 * `process.env` without the variables a workspace runner sets (npm_*, PNPM_*, TURBO_*, VITEST*,
 * NODE_OPTIONS), a Node with node:sqlite first on the PATH (Node 24 from npm when this Node has
 * none), npm kept quiet, then `extra`.
 *
 * @example
 * ```ts
 * await run("npm", ["i", "@pc/client"], { cwd: project, env: merchantEnv() })
 * ```
 */
export const merchantEnv = (extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|PNPM_|VITEST|TURBO_|NODE_OPTIONS$|INIT_CWD$)/i.test(key)) env[key] = value
  }
  const nodeBin = merchantNodeBin()
  if (nodeBin !== undefined) {
    env.PATH = `${nodeBin}:${env.PATH ?? ""}`
    env.npm_config_globalconfig = machineGlobalNpmrc()
  }
  return {
    ...env,
    npm_config_fund: "false",
    npm_config_audit: "false",
    npm_config_update_notifier: "false",
    ...extra
  }
}

/**
 * A fresh `npm init -y` project in a new temp folder named `prefix...` (the caller removes it).
 *
 * @example
 * ```ts
 * const project = await npmProject("pc-consumer-")
 * ```
 */
export const npmProject = async (prefix: string, env: NodeJS.ProcessEnv = merchantEnv()): Promise<string> => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  await ok("npm", ["init", "-y"], { cwd: dir, env })
  return dir
}
