/**
 * The mock's developer menu (`/dev/...`, CONTRACT.md "The developer menu") as `pc` uses it: every
 * call `pc` makes to it goes through here, over the typed client the mock exports (`MockClient`,
 * made from the same `HttpApi` definition the mock serves), so the answers' types are the mock's
 * own Schemas and nothing is declared twice.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { MockClient, type MockEvent } from "@pc/mock-server"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { CliFailure } from "./Output.js"

type Client = MockClient.MockClient
/** What a developer-menu route answers in `data`. */
type Answer<K extends keyof Client["dev"]> = Extract<
  Effect.Effect.Success<ReturnType<Client["dev"][K]>>,
  { readonly data: unknown }
>["data"]

/** A merchant as `GET /dev/merchants/{appKey}` shows it. */
export type Merchant = Answer<"getMerchant">
/** The callback endpoint audit's report. */
export type AuditReport = Extract<
  Effect.Effect.Success<ReturnType<Client["audit"]["auditEndpoint"]>>,
  { readonly data: unknown }
>["data"]
/** A platform key as `GET /dev/platform-keys` lists it. */
export type PlatformKey = Answer<"rotatePlatformKey">
/** A callback delivery with its attempts, as `GET /dev/callbacks` lists it. */
export type Delivery = Answer<"resendCallback">

/** The mock's clock as `GET /dev/clock` shows it. */
export type ClockState = Extract<
  Effect.Effect.Success<ReturnType<Client["clock"]["getClock"]>>,
  { readonly data: unknown }
>["data"]

/** The fault setting as `GET /dev/faults` shows it. */
export type FaultSetting = Extract<
  Effect.Effect.Success<ReturnType<Client["faults"]["getFaults"]>>,
  { readonly data: unknown }
>["data"]

/** An order as `GET /dev/orders/{orderSn}` shows it. */
export type Order = Answer<"getOrder">

/** The moves of `POST /dev/orders/{orderSn}/{move}`. */
export type OrderMove = "pay" | "fail" | "expire"

/**
 * A developer-menu call that failed: `Refused` when the mock answered with an error envelope (its
 * `code` and `msg` kept), `Network` when it could not be reached, did not answer in time, or its
 * answer was not the mock's.
 *
 * @example
 * ```ts
 * import { MockAdminError } from "./MockAdmin.js"
 *
 * new MockAdminError({ kind: "Refused", code: "notFound", message: "no order X" })
 * ```
 */
export class MockAdminError extends Data.TaggedError("MockAdminError")<{
  readonly kind: "Refused" | "Network"
  readonly code: string | undefined
  readonly message: string
}> {}

/**
 * What the developer menu offers `pc`. Every method fails with {@link MockAdminError}.
 *
 * @example
 * ```ts
 * import { using } from "./MockAdmin.js"
 *
 * const keys = using(settings, (admin) => admin.platformKeys())
 * ```
 */
export interface MockAdminService {
  /** The mock's base URL. */
  readonly baseUrl: string
  readonly createMerchant: (input: {
    readonly publicKeyPem: string
    readonly notifyUrl?: string | undefined
  }) => Effect.Effect<Answer<"createMerchant">, MockAdminError>
  readonly merchant: (appKey: string) => Effect.Effect<Merchant, MockAdminError>
  readonly addMerchantKey: (
    appKey: string,
    publicKeyPem: string
  ) => Effect.Effect<Answer<"addMerchantKey">, MockAdminError>
  readonly disableMerchantKey: (
    appKey: string,
    version: number
  ) => Effect.Effect<Answer<"disableMerchantKey">, MockAdminError>
  readonly enableMerchantKey: (
    appKey: string,
    version: number
  ) => Effect.Effect<Answer<"enableMerchantKey">, MockAdminError>
  readonly setNotifyUrl: (appKey: string, notifyUrl: string) => Effect.Effect<Answer<"setNotifyUrl">, MockAdminError>
  readonly platformKeys: () => Effect.Effect<ReadonlyArray<PlatformKey>, MockAdminError>
  readonly rotatePlatformKey: (options?: {
    readonly publishOnly?: boolean
  }) => Effect.Effect<PlatformKey, MockAdminError>
  readonly activatePlatformKey: (version: number) => Effect.Effect<PlatformKey, MockAdminError>
  /** `GET /dev/clock` and `POST /dev/clock/advance`: the mock's clock, which tests move forward. */
  readonly clock: {
    readonly show: () => Effect.Effect<ClockState, MockAdminError>
    readonly advance: (ms: number) => Effect.Effect<ClockState, MockAdminError>
  }
  /** `GET/PUT/DELETE /dev/faults`: the faults the mock injects on purpose. */
  readonly faults: {
    readonly show: () => Effect.Effect<FaultSetting, MockAdminError>
    readonly set: (setting: FaultSetting) => Effect.Effect<FaultSetting, MockAdminError>
    readonly clear: () => Effect.Effect<FaultSetting, MockAdminError>
  }
  readonly order: (orderSn: string) => Effect.Effect<Answer<"getOrder">, MockAdminError>
  readonly moveOrder: (orderSn: string, move: OrderMove) => Effect.Effect<Answer<"getOrder">, MockAdminError>
  readonly callbacks: (orderSn?: string) => Effect.Effect<ReadonlyArray<Delivery>, MockAdminError>
  readonly resendCallback: (id: string) => Effect.Effect<Delivery, MockAdminError>
  /** `POST /dev/merchants/{appKey}/audit`: the callback endpoint audit, which takes up to 60 s. */
  readonly audit: (
    appKey: string,
    input: { readonly url?: string | undefined; readonly orderSn?: string | undefined }
  ) => Effect.Effect<AuditReport, MockAdminError>
  /**
   * `GET /dev/events`: the mock's events from now on, until the stream is interrupted.
   * `onConnected` runs once the mock has answered (its `: connected` comment).
   */
  readonly events: (onConnected: Effect.Effect<void>) => Stream.Stream<MockEvent, MockAdminError>
}

/** The envelope code of a wire error's tag: `NotFound` is `notFound`, `Unauthorized` is `unauthorized`. */
const envelopeCode = (tag: string) => tag.charAt(0).toLowerCase() + tag.slice(1)

/** The typed client's failures as {@link MockAdminError}: an error envelope is refused, the rest unreachable. */
const classify =
  (baseUrl: string) =>
  (error: { readonly _tag: string; readonly message: string; readonly msg?: string }): MockAdminError => {
    switch (error._tag) {
      case "TimeoutException":
        return new MockAdminError({
          kind: "Network",
          code: undefined,
          message: `${baseUrl} did not answer within 15 s`
        })
      case "RequestError":
        return new MockAdminError({
          kind: "Network",
          code: undefined,
          message: `cannot reach ${baseUrl}: ${error.message}`
        })
      case "ResponseError":
      case "ParseError":
        return new MockAdminError({
          kind: "Network",
          code: undefined,
          message: `${baseUrl} did not answer as the mock does (${error.message.split("\n")[0]}): is it the mock?`
        })
      default:
        return new MockAdminError({
          kind: "Refused",
          code: envelopeCode(error._tag),
          message: error.msg ?? error.message
        })
    }
  }

/** A refusal of `/dev/events` (not 200): its envelope's code and msg, as the typed client gives the others. */
const refusal = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<MockAdminError> =>
  response.text.pipe(
    Effect.map((text) => {
      try {
        const envelope = JSON.parse(text) as { readonly code?: unknown; readonly msg?: unknown }
        if (typeof envelope.code === "string" && typeof envelope.msg === "string") {
          return new MockAdminError({ kind: "Refused", code: envelope.code, message: envelope.msg })
        }
      } catch {}
      return new MockAdminError({
        kind: "Network",
        code: undefined,
        message: `${response.request.url} answered HTTP ${response.status}: is it the mock?`
      })
    }),
    Effect.catchAll(() =>
      Effect.succeed(
        new MockAdminError({ kind: "Network", code: undefined, message: `${response.request.url} did not answer` })
      )
    )
  )

/**
 * The developer menu at `baseUrl` over the mock's typed client; needs an HttpClient.
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
  Effect.zipWith(
    MockClient.make(options.baseUrl, {
      devToken: options.devToken === undefined ? undefined : Redacted.make(options.devToken)
    }),
    HttpClient.HttpClient,
    ({ audit, clock, dev, faults }, http) => {
      const call = <A, E extends { readonly _tag: string; readonly message: string }>(
        effect: Effect.Effect<{ readonly data: A }, E>
      ): Effect.Effect<A, MockAdminError> =>
        effect.pipe(
          Effect.map(({ data }) => data),
          Effect.timeout("15 seconds"),
          Effect.mapError(classify(options.baseUrl))
        )
      const moves = { pay: dev.payOrder, fail: dev.failOrder, expire: dev.expireOrder } as const
      return {
        baseUrl: options.baseUrl,
        createMerchant: (input) =>
          call(
            dev.createMerchant({
              payload: {
                publicKeyPem: input.publicKeyPem,
                ...(input.notifyUrl === undefined ? {} : { notifyUrl: input.notifyUrl })
              }
            })
          ),
        merchant: (appKey) => call(dev.getMerchant({ path: { appKey } })),
        addMerchantKey: (appKey, publicKeyPem) =>
          call(dev.addMerchantKey({ path: { appKey }, payload: { publicKeyPem } })),
        disableMerchantKey: (appKey, version) => call(dev.disableMerchantKey({ path: { appKey, version } })),
        enableMerchantKey: (appKey, version) => call(dev.enableMerchantKey({ path: { appKey, version } })),
        setNotifyUrl: (appKey, notifyUrl) => call(dev.setNotifyUrl({ path: { appKey }, payload: { notifyUrl } })),
        platformKeys: () => call(dev.listPlatformKeys()),
        rotatePlatformKey: (options) =>
          call(dev.rotatePlatformKey({ payload: options?.publishOnly === true ? { publishOnly: true } : {} })),
        activatePlatformKey: (version) => call(dev.activatePlatformKey({ path: { version } })),
        clock: {
          show: () => call(clock.getClock()),
          advance: (ms) => call(clock.advanceClock({ payload: { ms } }))
        },
        faults: {
          show: () => call(faults.getFaults()),
          set: (setting) => call(faults.setFaults({ payload: setting })),
          clear: () => call(faults.clearFaults())
        },
        order: (orderSn) => call(dev.getOrder({ path: { orderSn } })),
        moveOrder: (orderSn, move) => call(moves[move]({ path: { orderSn } })),
        callbacks: (orderSn) => call(dev.listCallbacks({ urlParams: orderSn === undefined ? {} : { orderSn } })),
        resendCallback: (id) => call(dev.resendCallback({ path: { id } })),
        // Not `call`: the audit may take its whole 60 s, past the 15 s every other call is given.
        audit: (appKey, input) =>
          audit
            .auditEndpoint({
              path: { appKey },
              payload: {
                ...(input.url === undefined ? {} : { url: input.url }),
                ...(input.orderSn === undefined ? {} : { orderSn: input.orderSn })
              }
            })
            .pipe(
              Effect.map(({ data }) => data),
              Effect.timeout("75 seconds"),
              Effect.mapError(classify(options.baseUrl))
            ),
        // A stream the typed client cannot give (it reads a Text answer whole): read here, line by line.
        events: (onConnected) =>
          HttpClientResponse.stream(
            http
              .execute(
                HttpClientRequest.get(`${options.baseUrl}/dev/events`).pipe(
                  HttpClientRequest.accept("text/event-stream"),
                  options.devToken === undefined ? (r) => r : HttpClientRequest.bearerToken(options.devToken)
                )
              )
              .pipe(
                Effect.mapError(classify(options.baseUrl)),
                Effect.flatMap((response) =>
                  response.status === 200 ? Effect.succeed(response) : Effect.flatMap(refusal(response), Effect.fail)
                )
              )
          ).pipe(
            Stream.mapError((error) => (error._tag === "MockAdminError" ? error : classify(options.baseUrl)(error))),
            Stream.decodeText(),
            Stream.splitLines,
            Stream.tap((line) => (line === ": connected" ? onConnected : Effect.void)),
            Stream.filter((line) => line.startsWith("data:")),
            Stream.mapEffect((line) =>
              Effect.try({
                try: () => JSON.parse(line.slice(5)) as MockEvent,
                catch: () =>
                  new MockAdminError({
                    kind: "Network",
                    code: undefined,
                    message: `${options.baseUrl}/dev/events sent an event that is not JSON: is it the mock?`
                  })
              })
            )
          )
      } satisfies MockAdminService
    }
  )

/** A developer-menu failure as the command's failure: refused is exit 1, unreachable exit 3. */
export const toCliFailure = (error: MockAdminError): CliFailure =>
  new CliFailure({
    kind: error.kind,
    code: error.code,
    message: error.message,
    hint:
      error.kind === "Network"
        ? "is the mock running? start it with npx pc mock, or point --base-url (PC_BASE_URL) at it"
        : error.code === "unauthorized"
          ? "the mock is not on loopback: set PC_DEV_TOKEN (or npx pc config set dev-token) to its developer token"
          : undefined
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
