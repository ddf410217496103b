// A merchant's project: an `npm init -y` folder outside the workspace, and the environment its
// commands run in (none of the workspace's npm, pnpm, turbo or vitest variables leaking in).
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ok } from "./Processes.mjs"

let merchantNodeDir
/**
 * A folder to put first on a merchant's PATH so that `node` (and npm's and npx's scripts) is a Node
 * with node:sqlite, or undefined when this Node has it. On Node 20 the mock needs better-sqlite3,
 * which the READMEs' install lines for current Nodes do not add: the merchant's commands run on
 * Node 24 from the npm registry instead (the Node 20 story is the workspace's own suites).
 */
const merchantNodeBin = () => {
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
      if (error?.code !== "EEXIST" || !existsSync(join(dir, "node"))) throw error
    }
    merchantNodeDir = dir
  }
  return merchantNodeDir
}

/**
 * `process.env` without the variables a workspace runner sets, a Node with node:sqlite first on the
 * PATH (Node 24 when this one has none), plus npm's quiet settings and `extra`.
 */
export const merchantEnv = (extra = {}) => {
  const env = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|PNPM_|VITEST|TURBO_|NODE_OPTIONS$|INIT_CWD$)/i.test(key)) env[key] = value
  }
  const nodeBin = merchantNodeBin()
  if (nodeBin !== undefined) env.PATH = `${nodeBin}:${env.PATH ?? ""}`
  return {
    ...env,
    npm_config_fund: "false",
    npm_config_audit: "false",
    npm_config_update_notifier: "false",
    ...extra
  }
}

/** A fresh `npm init -y` project in a new temp folder (the caller removes it). */
export const npmProject = async (prefix, env = merchantEnv()) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  await ok("npm", ["init", "-y"], { cwd: dir, env })
  return dir
}
