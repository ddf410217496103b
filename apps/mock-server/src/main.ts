/**
 * `pnpm mock` / `pc mock`: starts one mock server process for one environment, prints where it is
 * and the test merchant when ready, and stops cleanly on SIGINT or SIGTERM.
 */
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import { ConfigError, fromArgs, type MockConfigShape } from "./Config.js"
import { type Started, start } from "./Server.js"

/** Runs the mock from command-line flags until a signal stops it. */
export const main = async (argv: ReadonlyArray<string>): Promise<void> => {
  let config: MockConfigShape
  try {
    config = fromArgs(argv)
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exitCode = 2
      return
    }
    throw error
  }
  await run(config)
}

/**
 * The lines the mock prints once it is ready: where it listens, its public URL when that is another
 * address (a proxy), the environment, the test merchant and the docs.
 *
 * @example
 * ```ts
 * console.log(readyMessage(await start(config)))
 * ```
 */
export const readyMessage = (server: Started): string => {
  const keyFile = relative(
    process.cwd(),
    fileURLToPath(new URL("../test-merchant/TEST-ONLY-private-key.pem", import.meta.url))
  )
  return [
    `Payment Connect mock listening on ${server.listenUrl}`,
    ...(server.url === server.listenUrl ? [] : [`  public URL:           ${server.url}`]),
    `  environment:          ${server.environment}`,
    `  test merchant appKey: ${server.testMerchantAppKey}`,
    `  test merchant key:    ${keyFile} (key version 1, TEST ONLY)`,
    `  database:             ${server.db}`,
    `  docs:                 ${server.url}/docs`,
    ...devAccessLines(server)
  ].join("\n")
}

/**
 * What the start-up output says of the developer menu: nothing on loopback without a token; bound
 * elsewhere, a warning of what the menu can do, and the token to use (printed once here, so that
 * the developer can use it; it guards a test tool, not money).
 */
const devAccessLines = (server: Started): ReadonlyArray<string> => {
  const { token, generated, exposed } = server.devAccess
  if (token === undefined) return []
  return [
    ...(exposed
      ? [
          `WARNING: bound to ${server.listenUrl}, which is not a loopback address: anyone who can reach it and has`,
          "  the developer token can use the developer menu, which registers merchant keys (and so can sign as any",
          "  merchant), changes notify URLs, rotates platform keys and pays orders. Every /dev route requires",
          "  Authorization: Bearer <token>."
        ]
      : []),
    `  developer token:      ${token}${generated ? " (generated for this run; choose one with --dev-token)" : ""}`
  ]
}

/** Starts the mock with a parsed configuration, prints where it is, and stops it on SIGINT/SIGTERM. */
export const run = async (config: MockConfigShape): Promise<void> => {
  const server = await start(config)
  console.log(readyMessage(server))
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`${signal}: stopping the mock`)
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("the mock did not stop cleanly", error)
        process.exit(1)
      }
    )
  }
  process.once("SIGINT", () => stop("SIGINT"))
  process.once("SIGTERM", () => stop("SIGTERM"))
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error("the mock failed to start:", error instanceof Error ? error.message : error)
    process.exit(1)
  })
}
