/**
 * A typed client of the mock, made from the same `HttpApi` definition that the mock serves: every
 * route's parameters, bodies, answers and errors are typed. For `pc`, for this repository's tests
 * and for merchants' own test suites (create a merchant, pay an order, read its deliveries).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { MockApi } from "./MockApi.js"

/**
 * The client of a mock at `baseUrl` (its URL, e.g. `startMock`'s `url`); needs an `HttpClient`.
 * `devToken` is sent as `Authorization: Bearer` where the mock requires it.
 * Routes are methods grouped as in `/openapi.json` (`client.dev.createMerchant`, `client.dev.payOrder`, ...). Answers are
 * the success envelope `{code: "SUCCESS", msg: null, data}`; error envelopes fail with their typed
 * error (`ParamError`, `NotFound`, ... from `WireErrors`), an `HttpClientError` or a `ParseError`.
 *
 * @example
 * ```ts
 * const client = yield* MockClient.make("http://127.0.0.1:4010")
 * const { data } = yield* client.dev.payOrder({ path: { orderSn } })
 * ```
 */
export const make = (baseUrl: string, options: { readonly devToken?: Redacted.Redacted<string> | undefined } = {}) =>
  HttpApiClient.make(MockApi, {
    baseUrl,
    // The developer token, where the mock requires one (bound to a non-loopback address).
    transformClient:
      options.devToken === undefined
        ? undefined
        : HttpClient.mapRequest(HttpClientRequest.bearerToken(Redacted.value(options.devToken)))
  })

/** The client {@link make} gives. */
export type MockClient = Effect.Effect.Success<ReturnType<typeof make>>

/**
 * Runs `use` with a client of the mock at `baseUrl` over `fetch`, as a Promise (for plain test
 * suites). Rejects with the typed error `use` fails with.
 *
 * @example
 * ```ts
 * const merchant = await MockClient.run(mock.url, (client) =>
 *   client.dev.createMerchant({ payload: { publicKeyPem } })
 * )
 * ```
 */
export const run = <A, E>(baseUrl: string, use: (client: MockClient) => Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromise(Effect.flatMap(make(baseUrl), use).pipe(Effect.provide(FetchHttpClient.layer)))
