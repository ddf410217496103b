/**
 * What the mock prints once it is ready: where it listens, its public URL when that is another
 * address (a proxy), the environment, the test merchant and where its TEST-ONLY key is.
 */
import { relative } from "node:path"
import type { Started } from "./Server.js"
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
    `  environment:          ${server.environment}`,
    `  test merchant appKey: ${server.testMerchantAppKey}`,
    `  test merchant key:    ${relative(process.cwd(), testMerchantPrivateKeyFile)} (key version 1, TEST ONLY)`,
    `  database:             ${server.db}`,
    `  docs:                 ${server.url}/docs`
  ].join("\n")
