/**
 * What the mock prints once it is ready: where it listens, its public URL when that is another
 * address (a proxy), the environment, the test merchant and where its TEST-ONLY key is.
 */
import { relative } from "node:path"
import type { Started } from "./Server.js"
import { redactDatabaseUrl } from "../store/DatabaseUrl.js"
import { testMerchantPrivateKeyFile } from "./TestMerchant.js"

/**
 * The ready lines of a started mock, as `pc mock` prints them.
 *
 * @example
 * ```ts
 * import { defaults, readyMessage, start } from "@pc/mock-server"
 *
 * const mock = await start({ ...defaults, port: 0, db: ":memory:" })
 * console.log(readyMessage(mock)) // "Payment Connect mock listening on http://127.0.0.1:..."
 * await mock.close()
 * ```
 */
export const readyMessage = (server: Started): string =>
  [
    `Payment Connect mock listening on ${server.listenUrl}`,
    ...(server.url === server.listenUrl ? [] : [`  public URL:           ${server.url}`]),
    `  dashboard:            ${server.url}/`,
    `  environment:          ${server.environment}`,
    `  test merchant appKey: ${server.testMerchantAppKey}`,
    `  test merchant key:    ${relative(process.cwd(), testMerchantPrivateKeyFile)} (key version 1, TEST ONLY)`,
    `  database:             ${redactDatabaseUrl(server.db)}`,
    `  docs:                 ${server.url}/docs`,
    ...devAccessLines(server)
  ].join("\n")

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
