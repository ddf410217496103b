// A merchant's project: an `npm init -y` folder outside the workspace, and the environment its
// commands run in (none of the workspace's npm, pnpm, turbo or vitest variables leaking in).
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ok } from "./Processes.mjs"

/** `process.env` without the variables a workspace runner sets, plus npm's quiet settings and `extra`. */
export const merchantEnv = (extra = {}) => {
  const env = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|PNPM_|VITEST|TURBO_|NODE_OPTIONS$|INIT_CWD$)/i.test(key)) env[key] = value
  }
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
