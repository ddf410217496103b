// Signs an outgoing HttpClientRequest (spec 5.3): runs as a request mapper inside the HttpClient,
// so every execution of the request (every retry, ours or a retryTransient added through
// transformClient) takes a fresh timestamp from Clock and a fresh signature.
import type { Crypto, KeyRing } from "@pc/core"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as RequestSigning from "../RequestSigning.js"

/** Marks a RequestError whose cause is the signer itself (not the network), so it maps to a configuration error. */
export class SigningFailure {
  readonly _tag = "SigningFailure"
  constructor(readonly cause: unknown) {}
}

const bodyBytes = (request: HttpClientRequest.HttpClientRequest): Uint8Array | undefined => {
  switch (request.body._tag) {
    case "Empty":
      return new Uint8Array(0)
    case "Uint8Array":
      return request.body.body
    default:
      // A stream or form body cannot be signed byte for byte before it is sent.
      return undefined
  }
}

/**
 * The request mapper. The spec's http-uri is the path as sent (`/openapi/v2/order/create`); the
 * client refuses a base URL with a path of its own, so the path sent is the path signed.
 */
export const requestSigner =
  (options: {
    readonly appKey: string
    readonly keyRing: KeyRing.KeyRing<Crypto.Signer>
    /** Whether to sign off the calling thread now (RequestSigning.sign's `offThread`). */
    readonly offThread: () => boolean
  }) =>
  (
    request: HttpClientRequest.HttpClientRequest
  ): Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.RequestError> =>
    // A plain chain rather than Effect.gen: it runs once per attempt, on the hot path.
    Effect.suspend(() => {
      const body = bodyBytes(request)
      if (body === undefined) {
        return Effect.fail(
          new HttpClientError.RequestError({
            request,
            reason: "Encode",
            description: `a ${request.body._tag} body cannot be signed; send the exact bytes as a Uint8Array body`
          })
        )
      }
      let path: string
      try {
        path = new URL(request.url).pathname
      } catch (cause) {
        return Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause }))
      }
      const version = options.keyRing.current
      return Clock.currentTimeMillis.pipe(
        Effect.flatMap((timestamp) =>
          Effect.tryPromise({
            try: () =>
              RequestSigning.sign(
                options.keyRing,
                {
                  method: request.method,
                  path,
                  appKey: options.appKey,
                  timestamp,
                  body
                },
                { offThread: options.offThread() }
              ),
            catch: (cause) =>
              new HttpClientError.RequestError({
                request,
                reason: "Encode",
                description: `the signer of key version ${version} failed`,
                cause: new SigningFailure(cause)
              })
          })
        ),
        Effect.map((headers) => HttpClientRequest.setHeaders(request, headers))
      )
    })
