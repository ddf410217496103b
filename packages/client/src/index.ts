/**
 * @pc/client: the Merchant Payment Connect client. `PaymentClient` (an Effect service) creates
 * orders with signed, retried requests; `Callback` verifies the service's signed callbacks and
 * `CallbackHandler` serves them over Fetch or Node HTTP; `Promise` offers both to code that does
 * not use Effect (also importable alone as `@pc/client/promise`); `RequestSigning` gives the four
 * request headers for exact bytes; `Testing` signs callbacks with a test platform key for handler
 * tests (also `@pc/client/testing`).
 *
 * @since 0.1.0
 */
export * as Callback from "./Callback.js"
export * as CallbackHandler from "./CallbackHandler.js"
export * as PaymentClient from "./PaymentClient.js"
export * as PaymentClientError from "./PaymentClientError.js"
export * as PlatformKeySource from "./PlatformKeySource.js"
export * as Promise from "./Promise.js"
export * as ReplayGuard from "./ReplayGuard.js"
export * as RequestSigning from "./RequestSigning.js"
export * as Testing from "./Testing.js"
