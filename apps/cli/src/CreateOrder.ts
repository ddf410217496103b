/**
 * Create-order through `@pc/client`'s PaymentClient with the configured merchant (appKey, key file,
 * key version, base URL), its typed errors turned into the command's failure and exit code.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { PaymentClient, type PaymentClientError } from "@pc/client"
import type * as Wire from "@pc/core/Wire"
import * as Effect from "effect/Effect"
import { signerRing } from "./MerchantKey.js"
import { CliFailure } from "./Output.js"
import { requireAppKey, type Settings } from "./Settings.js"

const failureOf = (error: PaymentClientError.PaymentClientError): CliFailure => {
  switch (error._tag) {
    case "SignatureRejected":
      return new CliFailure({
        kind: "Refused",
        code: "signError",
        message: error.message,
        hint: error.hint,
        details: {
          keyVersion: error.keyVersion,
          requestId: error.requestId,
          localClockAheadMs: error.localClockAheadMs
        }
      })
    case "InvalidRequest":
      return new CliFailure({
        kind: error.source === "local" ? "Usage" : "Refused",
        code: error.code,
        message: error.message,
        details: { field: error.field, requestId: error.requestId }
      })
    case "DuplicateOrder":
      return new CliFailure({
        kind: "Refused",
        code: "duplicateOrder",
        message: error.message,
        hint: "the same orderId was used with another amount or currency; use a new orderId",
        details: { requestId: error.requestId }
      })
    case "RateLimited":
      return new CliFailure({ kind: "Refused", code: "rateLimited", message: error.message })
    case "ServerError":
    case "UnexpectedResponse":
      return new CliFailure({ kind: "Refused", code: error._tag, message: error.message })
    case "TransportError":
    case "Timeout":
      return new CliFailure({
        kind: "Network",
        code: error._tag,
        message: error.message,
        hint: "is the service running? for the mock: npx pc mock, and --base-url (PC_BASE_URL) pointing at it"
      })
    case "ConfigurationError":
      return new CliFailure({ kind: "Usage", code: error.reason, message: error.message })
  }
}

/**
 * Creates an order as the configured merchant; one attempt (a command line shows the answer rather
 * than waiting out retries).
 *
 * Fails with a `CliFailure`: usage (no appKey or key, a field refused locally), refused (the service's
 * code and the client's hint), network (unreachable, timeout).
 *
 * @example
 * ```ts
 * import { createOrder } from "./CreateOrder.js"
 *
 * createOrder(settings, { orderId: "M-1", amount: "10.00", currency: "USD" })
 * ```
 */
export const createOrder = (
  settings: Settings,
  input: PaymentClient.CreateOrderInput
): Effect.Effect<Wire.CreateOrderResult, CliFailure> =>
  Effect.gen(function* () {
    const appKey = yield* requireAppKey(settings)
    const keyRing = yield* signerRing(settings)
    const client = yield* PaymentClient.make({
      environment: settings.env,
      baseUrl: settings.baseUrl,
      appKey,
      keyRing,
      retry: { maxAttempts: 1 }
    }).pipe(Effect.mapError(failureOf))
    return yield* client.createOrder(input).pipe(Effect.mapError(failureOf))
  }).pipe(Effect.provide(FetchHttpClient.layer))
