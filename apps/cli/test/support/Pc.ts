// How the tests run `pc`: as a separate process, the way a user runs it: the built bin
// (`dist/bin.js` on plain Node, as npm installs it), which turbo builds before these tests.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { background, type Finished, type Running, run } from "@pc/test-support"
import { type Mock, TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem } from "@pc/test-support/mock"

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url))

/** The program and arguments that start `pc`. */
export const pcCommand = (args: ReadonlyArray<string>): [string, Array<string>] => [
  process.execPath,
  [join(ROOT, "apps/cli/dist/bin.js"), ...args]
]

/** A fresh profile directory, so no test reads another's (or the user's) settings. */
export const freshConfigDir = (): string => mkdtempSync(join(tmpdir(), "pc-cli-config-"))

/** The environment of a `pc` process: no PC_* variables from outside, then the given ones. */
const envOf = (env: Readonly<Record<string, string>>): NodeJS.ProcessEnv => {
  const clean: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("PC_")) clean[key] = value
  return { ...clean, NODE_OPTIONS: "", NO_COLOR: "1", ...env }
}

/** What a finished `pc` printed and how it ended. */
export type Ran = Finished

/** Runs `pc ...args` to the end, in its own process group (`killAll()` ends what a failed test left). */
export const pc = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Readonly<Record<string, string>>; readonly cwd?: string; readonly input?: string } = {}
): Promise<Ran> => {
  const [command, argv] = pcCommand(args)
  return run(command, argv, { cwd: options.cwd ?? ROOT, env: envOf(options.env ?? {}), input: options.input ?? "" })
}

/** Runs `pc ...args --json` and parses its stdout as one JSON document. */
export const pcJson = async <A = Record<string, unknown>>(
  args: ReadonlyArray<string>,
  options: Parameters<typeof pc>[1] = {}
): Promise<Ran & { readonly json: A }> => {
  const ran = await pc([...args, "--json"], options)
  let json: A
  try {
    json = JSON.parse(ran.stdout) as A
  } catch {
    throw new Error(`pc ${args.join(" ")} --json did not print one JSON document:\n${ran.stdout}\n${ran.stderr}`)
  }
  return { ...ran, json }
}

/** A long-running `pc` (listen, logs tail, mock): its output so far, lines as they come, and how it ended. */
export type { Running }

export const pcBackground = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Readonly<Record<string, string>>; readonly cwd?: string } = {}
): Running => {
  const [command, argv] = pcCommand(args)
  return background(command, argv, { cwd: options.cwd ?? ROOT, env: envOf(options.env ?? {}) })
}

/** The mock's test merchant, as `pc` is configured with it. */
export const testMerchant = { appKey: TEST_MERCHANT_APP_KEY, privateKeyPem: testMerchantPrivateKeyPem }

/** The environment of a `pc` process acting as the test merchant on `mock` (its key in a 0600 file). */
export const merchantEnv = (
  mock: Pick<Mock, "url">,
  environment: "sandbox" | "production" | "gray",
  configDir: string
): Record<string, string> => {
  const keyFile = join(mkdtempSync(join(tmpdir(), "pc-merchant-")), "merchant-private.pem")
  writeFileSync(keyFile, testMerchant.privateKeyPem(), { mode: 0o600 })
  return {
    PC_CONFIG_DIR: configDir,
    PC_BASE_URL: mock.url,
    PC_ENV: environment,
    PC_APP_KEY: testMerchant.appKey,
    PC_KEY_FILE: keyFile
  }
}
