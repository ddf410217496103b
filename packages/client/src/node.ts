/**
 * `@pc/client/node`: the `HttpClient` on `node:http` for the Effect client on Node. Its own entry
 * point, so that the browser entry never loads `node:http`.
 *
 * @since 0.1.0
 */
export * as NodeHttpClient from "./NodeHttpClient.js"
