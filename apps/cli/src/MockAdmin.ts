/**
 * The mock's developer menu (`/dev/...`, CONTRACT.md "The developer menu") as one service: every
 * call `pc` makes to it goes through here. Implemented with `@effect/platform`'s HttpClient over the
 * JSON envelopes; when the mock's `HttpApi` definition and its typed `HttpApiClient` land, swap
 * {@link make} for an implementation on that client: the interface and the commands stay as they are.
 */
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import type * as Wire from "@pc/core/Wire"
import { Context, Data, Effect, Layer } from "effect"
import { CliFailure } from "./Output.js"

/** A merchant as `GET /dev/merchants/{appKey}` shows it. */
export interface Merchant {
  readonly appKey: string
  readonly notifyUrl: string | null
  readonly keys: ReadonlyArray<{
    readonly version: number
    readonly status: "active" | "disabled"
    readonly uploadedAt: string
  }>
}

/** A platform key as `GET /dev/platform-keys` lists it. */
export interface PlatformKey {
  readonly environment: string
  readonly version: number
  readonly publicKeyPem: string
  readonly status: "current" | "published" | "retired"
}

/** One attempt of a callback delivery. */
export interface DeliveryAttempt {
  readonly attempt: number
  readonly at: string
  readonly url: string | null
  readonly httpStatus: number | null
  readonly error: string | null
  readonly keyVersion: number | null
  readonly durationMs: number
}

/** A callback delivery with its attempts, as `GET /dev/callbacks` lists it. */
export interface Delivery {
  readonly id: string
  readonly orderSn: string
  readonly eventId: string
  readonly eventType: Wire.CallbackEventType
  readonly status: "pending" | "delivered" | "failed"
  readonly attemptCount: number
  readonly nextAttemptAt: string | null
  readonly lastError: string | null
  readonly createdAt: string
  readonly deliveredAt: string | null
  readonly body: string
  readonly attempts: ReadonlyArray<DeliveryAttempt>
}

/** The moves of `POST /dev/orders/{orderSn}/{move}`. */
export type OrderMove = "pay" | "fail" | "expire"

/**
 * A developer-menu call that failed: `Refused` when the mock answered with an envelope code other
 * than SUCCESS (`code` and `msg` kept), `Network` when it could not be reached or its answer was not
 * an envelope.
 *
 * @example
 * ```ts
 * import { MockAdminError } from "./MockAdmin.js"
 *
 * new MockAdminError({ kind: "Refused", code: "notFound", message: "no order X", status: 404 })
 * ```
 */
export class MockAdminError extends Data.TaggedError("MockAdminError")<{
  readonly kind: "Refused" | "Network"
  readonly code: string | undefined
  readonly message: string
  readonly status: number | undefined
}> {}

/**
 * What the developer menu offers `pc`. Every method fails with {@link MockAdminError}.
 *
 * @example
 * ```ts
 * import { MockAdmin } from "./MockAdmin.js"
 *
 * const keys = Effect.flatMap(MockAdmin, (admin) => admin.platformKeys())
 * ```
 */
export interface MockAdminService {
  /** The mock's base URL. */
  readonly baseUrl: string
  readonly createMerchant: (input: {
    readonly publicKeyPem: string
    readonly notifyUrl?: string | undefined
  }) => Effect.Effect<{ readonly appKey: string; readonly keyVersion: number }, MockAdminError>
  readonly merchant: (appKey: string) => Effect.Effect<Merchant, MockAdminError>
  readonly addMerchantKey: (
    appKey: string,
    publicKeyPem: string
  ) => Effect.Effect<{ readonly keyVersion: number }, MockAdminError>
  readonly disableMerchantKey: (
    appKey: string,
    version: number
  ) => Effect.Effect<{ readonly version: number; readonly status: "disabled" }, MockAdminError>
  readonly setNotifyUrl: (
    appKey: string,
    notifyUrl: string
  ) => Effect.Effect<{ readonly appKey: string; readonly notifyUrl: string }, MockAdminError>
  readonly platformKeys: () => Effect.Effect<ReadonlyArray<PlatformKey>, MockAdminError>
  readonly rotatePlatformKey: () => Effect.Effect<PlatformKey, MockAdminError>
  readonly order: (orderSn: string) => Effect.Effect<Wire.Order, MockAdminError>
  readonly moveOrder: (orderSn: string, move: OrderMove) => Effect.Effect<Wire.Order, MockAdminError>
  readonly callbacks: (orderSn?: string) => Effect.Effect<ReadonlyArray<Delivery>, MockAdminError>
  readonly resendCallback: (id: string) => Effect.Effect<Delivery, MockAdminError>
}

/** The developer-menu service tag. */
export class MockAdmin extends Context.Tag("@pc/cli/MockAdmin")<MockAdmin, MockAdminService>() {}

const segment = encodeURIComponent

/**
 * The implementation over HttpClient and the envelopes.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { make } from "./MockAdmin.js"
 *
 * const admin = make({ baseUrl: "http://127.0.0.1:4010" }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 */
export const make = (options: {
  readonly baseUrl: string
  readonly devToken?: string | undefined
}): Effect.Effect<MockAdminService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(
          HttpClientRequest.prependUrl(options.baseUrl),
          HttpClientRequest.acceptJson,
          options.devToken === undefined ? (r) => r : HttpClientRequest.bearerToken(options.devToken)
        )
      )
    )
    const call = <A>(request: HttpClientRequest.HttpClientRequest): Effect.Effect<A, MockAdminError> =>
      client.execute(request).pipe(
        Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, text }))),
        Effect.timeout("15 seconds"),
        Effect.mapError(
          (error) =>
            new MockAdminError({
              kind: "Network",
              code: undefined,
              status: undefined,
              message:
                error._tag === "TimeoutException"
                  ? `${options.baseUrl} did not answer within 15 s`
                  : `cannot reach ${options.baseUrl}: ${error.message}`
            })
        ),
        Effect.flatMap(({ status, text }) => {
          let envelope: { code?: unknown; msg?: unknown; data?: unknown }
          try {
            envelope = JSON.parse(text)
          } catch {
            return Effect.fail(
              new MockAdminError({
                kind: "Network",
                code: undefined,
                status,
                message: `${options.baseUrl} answered HTTP ${status} without a JSON envelope: is it the mock?`
              })
            )
          }
          if (envelope?.code === "SUCCESS") return Effect.succeed(envelope.data as A)
          return Effect.fail(
            new MockAdminError({
              kind: "Refused",
              code: typeof envelope?.code === "string" ? envelope.code : undefined,
              status,
              message: typeof envelope?.msg === "string" ? envelope.msg : `HTTP ${status}`
            })
          )
        })
      )
    const post = (path: string, body?: unknown) =>
      body === undefined
        ? HttpClientRequest.post(path)
        : HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson(body))
    return MockAdmin.of({
      baseUrl: options.baseUrl,
      createMerchant: (input) => call(post("/dev/merchants", input)),
      merchant: (appKey) => call(HttpClientRequest.get(`/dev/merchants/${segment(appKey)}`)),
      addMerchantKey: (appKey, publicKeyPem) => call(post(`/dev/merchants/${segment(appKey)}/keys`, { publicKeyPem })),
      disableMerchantKey: (appKey, version) => call(post(`/dev/merchants/${segment(appKey)}/keys/${version}/disable`)),
      setNotifyUrl: (appKey, notifyUrl) =>
        call(
          HttpClientRequest.put(`/dev/merchants/${segment(appKey)}/notify-url`).pipe(
            HttpClientRequest.bodyUnsafeJson({ notifyUrl })
          )
        ),
      platformKeys: () => call(HttpClientRequest.get("/dev/platform-keys")),
      rotatePlatformKey: () => call(post("/dev/platform-keys/rotate")),
      order: (orderSn) => call(HttpClientRequest.get(`/dev/orders/${segment(orderSn)}`)),
      moveOrder: (orderSn, move) => call(post(`/dev/orders/${segment(orderSn)}/${move}`)),
      callbacks: (orderSn) =>
        call(
          HttpClientRequest.get("/dev/callbacks").pipe(
            orderSn === undefined ? (r) => r : HttpClientRequest.setUrlParam("orderSn", orderSn)
          )
        ),
      resendCallback: (id) => call(post(`/dev/callbacks/${segment(id)}/resend`))
    })
  })

/**
 * The layer of {@link make}.
 *
 * @example
 * ```ts
 * import { layer } from "./MockAdmin.js"
 *
 * program.pipe(Effect.provide(layer({ baseUrl })), Effect.provide(FetchHttpClient.layer))
 * ```
 */
export const layer = (options: { readonly baseUrl: string; readonly devToken?: string | undefined }) =>
  Layer.effect(MockAdmin, make(options))

/** A developer-menu failure as the command's failure: refused is exit 1, unreachable exit 3. */
export const toCliFailure = (error: MockAdminError): CliFailure =>
  new CliFailure({
    kind: error.kind,
    code: error.code,
    message: error.message,
    hint:
      error.kind === "Network"
        ? "is the mock running? start it with pc mock, or point --base-url (PC_BASE_URL) at it"
        : error.code === "unauthorized"
          ? "the mock is not on loopback: set PC_DEV_TOKEN (or pc config set dev-token) to its developer token"
          : undefined,
    details: error.status === undefined ? undefined : { status: error.status }
  })

/**
 * Runs `f` with the developer menu at `settings.baseUrl` over Fetch, its failures as the command's.
 *
 * @example
 * ```ts
 * import { using } from "./MockAdmin.js"
 *
 * using(settings, (admin) => admin.order(orderSn))
 * ```
 */
export const using = <A>(
  settings: { readonly baseUrl: string; readonly devToken?: string | undefined },
  f: (admin: MockAdminService) => Effect.Effect<A, MockAdminError>
): Effect.Effect<A, CliFailure> =>
  Effect.flatMap(make(settings), f).pipe(Effect.mapError(toCliFailure), Effect.provide(FetchHttpClient.layer))
