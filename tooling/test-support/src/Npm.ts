// A merchant's project: an `npm init -y` folder outside the workspace, and the environment its
// commands run in (none of the workspace's npm, pnpm, turbo or vitest variables leaking in).
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ok } from "./Processes.js"

/**
 * `process.env` without the variables a workspace runner sets (npm_*, PNPM_*, TURBO_*, VITEST*,
 * NODE_OPTIONS), npm kept quiet, then `extra`.
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
