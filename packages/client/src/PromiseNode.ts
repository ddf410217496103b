/**
 * The Promise facade as Node loads it: `@pc/client/promise` resolves here under the `node` export
 * condition. Everything is `Promise`'s, except that `createPaymentClient` sends on `node:http`
 * (see `NodeHttpClient`) unless given a `fetch`. Bundles for browsers and edge runtimes load
 * `Promise` and send with the global `fetch`.
 *
 * @since 0.1.0
 */
import { createPaymentClientOn } from "./internal/promiseClient.js"
import * as NodeHttpClient from "./NodeHttpClient.js"
import type { PaymentClientOptions, PaymentConnectClient } from "./Promise.js"

export * from "./Promise.js"

/**
 * Makes the Promise client: checks the options and imports the keys once. On Node it sends with
 * `node:http` / `node:https` through Node's global keep-alive agents; pass `fetch` to send with a
 * fetch function instead.
 *
 * Rejects with `ConfigurationError`: a bad option, a bad or weak key, a current key version not in
 * the ring, or bad platform keys.
 *
 * @example
 * ```ts
 * import { createPaymentClient } from "@pc/client/promise"
 *
 * const client = await createPaymentClient({
 *   environment: "sandbox",
 *   baseUrl: "http://127.0.0.1:4010", // `pnpm mock`
 *   appKey: "7e57c0de-0000-4000-8000-000000000001", // the mock's test merchant
 *   privateKeys: { 1: privateKeyPem }
 * })
 * const { h5Url } = await client.createOrder({ orderId: "M-1001", amount: "10.00", currency: "USD" })
 * ```
 */
export const createPaymentClient: (options: PaymentClientOptions) => Promise<PaymentConnectClient> =
  createPaymentClientOn(NodeHttpClient.layer)
