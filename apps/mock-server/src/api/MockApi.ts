/**
 * The mock's whole HTTP surface, declared once: the service API (the spec's one production
 * endpoint), the developer menu (/dev), the hosted checkout pages (/h5) and the service routes.
 * `HttpApiBuilder` serves it, `OpenApi.fromApi` documents it and `HttpApiClient` calls it.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import * as Schema from "effect/Schema"
import { ErrorEnvelopes } from "./WireErrors.js"
import { AuditReport, AuditRequest } from "./AuditSchemas.js"
import { ClockAdvance, ClockState } from "./ClockSchemas.js"
import { FaultSetting } from "../config/Faults.js"
import * as S from "./Schemas.js"
import { completeDocument } from "./Webhooks.js"

/**
 * Authorises every developer-menu route and dashboard action: the one place where the developer
 * token (`--dev-token`, required when the mock is bound to a non-loopback address) is checked.
 * Its layer lives in `DevAccessLayer.ts`.
 */
export class DevAccess extends HttpApiMiddleware.Tag<DevAccess>()("DevAccess", {
  failure: ErrorEnvelopes.Unauthorized,
  security: {
    devToken: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "The developer token (`--dev-token`, or the one the mock prints at start). Required only when the mock is bound to a non-loopback address."
      )
    )
  }
}) {}

const requestHeader = (name: string, description: string, required: boolean, example: string) => ({
  name,
  in: "header",
  required,
  description,
  schema: { type: "string" },
  example
})

/** The mock's TEST-ONLY test merchant, whose key ships with the mock. */
const TEST_APP_KEY = "7e57c0de-0000-4000-8000-000000000001"

/** A create-order a reader can send as it stands, signed with openssl (the README's sample). */
const OPENSSL_SAMPLE = [
  "MOCK=http://127.0.0.1:4010                     # this mock's URL",
  `APP_KEY=${TEST_APP_KEY}   # the test merchant (TEST ONLY)`,
  "KEY=node_modules/@pc/mock-server/test-merchant/TEST-ONLY-private-key.pem",
  `BODY='{"orderId":"M-1001","amount":"10.00","currency":"USD"}'`,
  "TS=$(node -e 'console.log(Date.now())')         # Unix epoch milliseconds",
  `SIG=$(printf 'POST ${Wire.CREATE_ORDER_PATH}\\n%s.%s.%s' "$APP_KEY" "$TS" "$BODY" \\`,
  '  | openssl dgst -sha256 -sign "$KEY" | openssl base64 -A)',
  `curl -s "$MOCK${Wire.CREATE_ORDER_PATH}" -H 'Content-Type: application/json' \\`,
  `  -H "X-R-AK: $APP_KEY" -H "X-R-TS: $TS" -H 'X-R-KEY-VERSION: 1' -H "X-R-Signature: $SIG" \\`,
  '  --data-binary "$BODY"'
].join("\n")

/** What /docs says of signing, above the sample: the string to sign, then two ways to sign it. */
const SIGNING_GUIDE = [
  "Idempotent per appKey and orderId. Every request carries four headers: `X-R-AK` (your appKey), `X-R-TS` " +
    "(Unix epoch milliseconds), `X-R-KEY-VERSION` (the version of the key that signs) and `X-R-Signature`: the " +
    "standard Base64 of a SHA256withRSA signature, with your private key, over the string to sign",
  "",
  "```",
  `POST ${Wire.CREATE_ORDER_PATH}`,
  "<appKey>.<X-R-TS>.<raw body>",
  "```",
  "",
  "(one `\\n` between the two lines; the body byte for byte as sent). In sandbox the signature is not enforced; " +
    "`X-R-Signature-Check` says what production would decide.",
  "",
  "With openssl and curl, signed by the mock's TEST-ONLY test merchant (its key is in `@pc/mock-server`, " +
    "`apps/mock-server/test-merchant/` in the repository):",
  "",
  "```sh",
  OPENSSL_SAMPLE,
  "```",
  "",
  "Or let pc (`npm i -D @pc/cli`) sign it and print the curl command:",
  "",
  "```sh",
  `npx pc sign --base-url "$MOCK" --app-key "$APP_KEY" --key-file "$KEY" --body "$BODY" --curl`,
  "```"
].join("\n")

/** The spec's one production endpoint. */
const createOrder = HttpApiEndpoint.post("createOrder", Wire.CREATE_ORDER_PATH)
  .setPayload(S.CreateOrderBody)
  .addSuccess(S.Success(S.CreateOrderResult))
  .addError(ErrorEnvelopes.ParamError)
  .addError(ErrorEnvelopes.SignError)
  .addError(ErrorEnvelopes.DuplicateOrder)
  .addError(ErrorEnvelopes.PayloadTooLarge)
  .addError(ErrorEnvelopes.UnsupportedMediaType)
  .addError(ErrorEnvelopes.RateLimited)
  .annotateContext(
    OpenApi.annotations({
      summary: "Create a payment order",
      description: SIGNING_GUIDE,
      // The four headers are described once, as the header parameters they are, and read from the
      // raw request by the signature check (a missing one is signError, not a decode error). They
      // are no security scheme: a signature is computed per request, not a token a client stores,
      // and as apiKey schemes /docs sent them empty beside a second X-R-AK "YOUR_SECRET_TOKEN".
      transform: (operation) => ({
        ...operation,
        security: [],
        "x-codeSamples": [{ lang: "Shell", label: "openssl + curl", source: OPENSSL_SAMPLE }],
        parameters: [
          ...(operation.parameters ?? []),
          requestHeader(Headers.RequestHeaders.appKey, "your merchant appKey (UUID)", true, TEST_APP_KEY),
          requestHeader(
            Headers.RequestHeaders.timestamp,
            "Unix epoch milliseconds, the same value as in the string to sign; within +-5 minutes of the server clock",
            true,
            "1767225600000"
          ),
          requestHeader(
            Headers.RequestHeaders.keyVersion,
            "the version of the key that signs: the ordinal of the merchant's public-key upload (1 for the first)",
            true,
            "1"
          ),
          requestHeader(
            Headers.RequestHeaders.signature,
            "standard Base64 of SHA256withRSA over the string to sign (see the description); required in production and gray, reported by X-R-Signature-Check in sandbox",
            false,
            "<Base64 signature of this request>"
          )
        ]
      })
    })
  )

/** `/openapi/v2/*`: the service's own API. */
export class ServiceApi extends HttpApiGroup.make("api")
  .add(createOrder)
  .annotateContext(OpenApi.annotations({ title: "API", description: "The service's own API (spec 4.2)." })) {}

const orderSnPath = Schema.Struct({ orderSn: S.OrderSnParam })
const appKeyPath = Schema.Struct({ appKey: S.AppKeyParam })

const move = <const Name extends string>(name: Name, verb: string, to: string) =>
  HttpApiEndpoint.post(name, `/dev/orders/:orderSn/${verb}`)
    .setPath(orderSnPath)
    .addSuccess(S.Success(S.Order))
    .addError(ErrorEnvelopes.NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: `Move a CREATED order to ${to} (sends its ${to.toLowerCase()} callback)`,
        description: "paramError where the order is already final."
      })
    )

/** `/dev/*`: the developer menu of the merchant platform, mock only. */
export class DevMenu extends HttpApiGroup.make("dev")
  .add(
    HttpApiEndpoint.post("createMerchant", "/dev/merchants")
      .setPayload(S.MerchantCreate)
      .addSuccess(S.Success(S.MerchantCreated))
      .addError(ErrorEnvelopes.UnsupportedMediaType)
      .annotateContext(
        OpenApi.annotations({ summary: "Create a merchant from its first public key upload (key version 1)" })
      )
  )
  .add(
    HttpApiEndpoint.get("listMerchants", "/dev/merchants")
      .setUrlParams(S.ListQuery)
      .addSuccess(S.Success(Schema.Array(S.Merchant)))
      .annotateContext(
        OpenApi.annotations({
          summary: "Merchants, newest first, with their notify URLs and key versions (at most `limit`, mock only)"
        })
      )
  )
  .add(
    HttpApiEndpoint.get("getMerchant", "/dev/merchants/:appKey")
      .setPath(appKeyPath)
      .addSuccess(S.Success(S.Merchant))
      .addError(ErrorEnvelopes.NotFound)
      .annotateContext(OpenApi.annotations({ summary: "A merchant with its notify URL and key versions" }))
  )
  .add(
    HttpApiEndpoint.post("addMerchantKey", "/dev/merchants/:appKey/keys")
      .setPath(appKeyPath)
      .setPayload(S.KeyUpload)
      .addSuccess(S.Success(S.KeyAdded))
      .addError(ErrorEnvelopes.NotFound)
      .addError(ErrorEnvelopes.UnsupportedMediaType)
      .annotateContext(
        OpenApi.annotations({ summary: "Upload another public key; its version is the ordinal of the upload" })
      )
  )
  .add(
    HttpApiEndpoint.post("disableMerchantKey", "/dev/merchants/:appKey/keys/:version/disable")
      .setPath(Schema.Struct({ appKey: S.AppKeyParam, version: S.KeyVersionParam }))
      .addSuccess(S.Success(S.KeyDisabled))
      .addError(ErrorEnvelopes.NotFound)
      .annotateContext(
        OpenApi.annotations({ summary: "Disable a key version: requests signed with it are refused from now on" })
      )
  )
  .add(
    HttpApiEndpoint.post("enableMerchantKey", "/dev/merchants/:appKey/keys/:version/enable")
      .setPath(Schema.Struct({ appKey: S.AppKeyParam, version: S.KeyVersionParam }))
      .addSuccess(S.Success(S.KeyEnabled))
      .addError(ErrorEnvelopes.NotFound)
      .annotateContext(
        OpenApi.annotations({
          summary: "Enable a disabled key version again: requests signed with it are accepted from now on"
        })
      )
  )
  .add(
    HttpApiEndpoint.put("setNotifyUrl", "/dev/merchants/:appKey/notify-url")
      .setPath(appKeyPath)
      .setPayload(S.NotifyUrlUpdate)
      .addSuccess(S.Success(S.NotifyUrlSet))
      .addError(ErrorEnvelopes.NotFound)
      .addError(ErrorEnvelopes.UnsupportedMediaType)
      .annotateContext(
        OpenApi.annotations({ summary: "Set where callbacks are sent; deliveries still waiting are attempted at once" })
      )
  )
  .add(
    HttpApiEndpoint.get("listPlatformKeys", "/dev/platform-keys")
      .addSuccess(S.Success(Schema.Array(S.PlatformKey)))
      .annotateContext(
        OpenApi.annotations({ summary: "The environment's platform public keys, by version, with their status" })
      )
  )
  .add(
    HttpApiEndpoint.post("rotatePlatformKey", "/dev/platform-keys/rotate")
      .setPayload(S.PlatformKeyRotation)
      .addSuccess(S.Success(S.PlatformKey))
      .addError(ErrorEnvelopes.UnsupportedMediaType)
      .annotateContext(
        OpenApi.annotations({
          summary:
            "Add a new platform key: it signs every callback from now on (the old one stays published), or with publishOnly it is only published until activated"
        })
      )
  )
  .add(
    HttpApiEndpoint.post("activatePlatformKey", "/dev/platform-keys/:version/activate")
      .setPath(S.PlatformKeyVersionPath)
      .addSuccess(S.Success(S.PlatformKey))
      .addError(ErrorEnvelopes.NotFound)
      .annotateContext(
        OpenApi.annotations({ summary: "A published key becomes current; the previous current key stays published" })
      )
  )
  .add(
    HttpApiEndpoint.post("retirePlatformKey", "/dev/platform-keys/:version/retire")
      .setPath(S.PlatformKeyVersionPath)
      .addSuccess(S.Success(S.PlatformKey))
      .addError(ErrorEnvelopes.NotFound)
      .addError(ErrorEnvelopes.ParamError)
      .annotateContext(OpenApi.annotations({ summary: "A published, not current key is retired: no longer valid" }))
  )
  .add(
    HttpApiEndpoint.get("listOrders", "/dev/orders")
      .setUrlParams(S.ListQuery)
      .addSuccess(S.Success(Schema.Array(S.OrderSummary)))
      .annotateContext(
        OpenApi.annotations({
          summary: "Orders, newest first, with the appKey they belong to (at most `limit`, mock only)"
        })
      )
  )
  .add(
    HttpApiEndpoint.get("getOrder", "/dev/orders/:orderSn")
      .setPath(orderSnPath)
      .addSuccess(S.Success(S.Order))
      .addError(ErrorEnvelopes.NotFound)
      .annotateContext(OpenApi.annotations({ summary: "An order and its state" }))
  )
  .add(move("payOrder", "pay", "PAID"))
  .add(move("failOrder", "fail", "FAILED"))
  .add(move("expireOrder", "expire", "EXPIRED"))
  .add(
    HttpApiEndpoint.get("listCallbacks", "/dev/callbacks")
      .setUrlParams(S.CallbacksQuery)
      .addSuccess(S.Success(Schema.Array(S.Delivery)))
      .annotateContext(
        OpenApi.annotations({
          summary:
            "Callback deliveries with every attempt (time, HTTP status, latency, error, the headers and body sent), newest first, optionally for one order",
          description:
            "Without `orderSn`: the newest deliveries, at most `limit` (default and maximum 200). With it: that order's deliveries, oldest first."
        })
      )
  )
  .add(
    HttpApiEndpoint.post("resendCallback", "/dev/callbacks/:id/resend")
      .setPath(
        Schema.Struct({ id: Schema.String.annotations({ description: "the delivery id", examples: ["dlv_1"] }) })
      )
      .addSuccess(S.Success(S.Delivery))
      .addError(ErrorEnvelopes.NotFound)
      .annotateContext(OpenApi.annotations({ summary: "Queue a delivery again now, signed afresh" }))
  )
  .add(
    HttpApiEndpoint.get("events", "/dev/events")
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }))
      .annotateContext(
        OpenApi.annotations({
          summary: "Server-Sent Events: what happens in the mock, one JSON object per event",
          description:
            "Each `data:` line is one JSON object with a `type`: `order.created` (orderSn, appKey), `order.moved` " +
            "(orderSn, status), `delivery.attempted` (deliveryId, orderSn, eventType), `platformKey.rotated` (version), " +
            "`request` (method, path, status, durationMs, requestId, and for create-order `signature`: verdict " +
            "valid|invalid|missing|refused, its cause, and the likely cause of a signature that does not match, e.g. a body re-serialised after signing). Every event has `at` (ISO time)."
        })
      )
  )
  .middleware(DevAccess)
  .annotateContext(
    OpenApi.annotations({ title: "Developer menu", description: "The merchant platform's developer menu (mock only)." })
  ) {}

const Html = HttpApiSchema.Text({ contentType: "text/html" })

const checkoutButton = <const Name extends string>(name: Name, verb: "pay" | "fail", to: string) =>
  HttpApiEndpoint.post(name, `/h5/checkout/:orderSn/${verb}`)
    .setPath(orderSnPath)
    .addSuccess(HttpApiSchema.Empty(303))
    .addError(ErrorEnvelopes.NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: `The checkout page's ${verb === "pay" ? "Pay" : "Fail"} button: moves the order to ${to}, then shows the page again`
      })
    )

/** `/h5/*`: the hosted checkout pages (`h5Url`). */
export class Checkout extends HttpApiGroup.make("checkout")
  .add(
    HttpApiEndpoint.get("checkoutPage", "/h5/checkout/:orderSn")
      .setPath(orderSnPath)
      .addSuccess(Html)
      .addError(ErrorEnvelopes.NotFound)
      .annotateContext(OpenApi.annotations({ summary: "The hosted checkout page of an order (the h5Url)" }))
  )
  .add(checkoutButton("checkoutPay", "pay", "PAID"))
  .add(checkoutButton("checkoutFail", "fail", "FAILED"))
  .annotateContext(OpenApi.annotations({ title: "Checkout", description: "The hosted checkout pages." })) {}

/** The mock's own routes: the developer dashboard, its documents and its liveness. */
export class ServiceRoutes extends HttpApiGroup.make("service")
  .add(
    HttpApiEndpoint.get("dashboard", "/")
      .addSuccess(
        Html.annotations({
          description: "the dashboard page, its style and script inline",
          examples: ['<!doctype html><html lang="en"><head><title>Payment Connect mock · sandbox</title>…</html>']
        })
      )
      .annotateContext(
        OpenApi.annotations({
          summary:
            "The developer dashboard: orders, callback deliveries and every attempt, merchants, platform keys, live",
          description:
            "The page itself is open; everything it shows and does goes through `/dev/` (with the developer token where one is required), and updates live from `/dev/events`."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("openApi", "/openapi.json")
      .addSuccess(
        Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
          description: "OpenAPI 3.1 document",
          examples: [{ openapi: "3.1.0", info: { title: "Merchant Payment Connect mock", version: "2" }, paths: {} }]
        })
      )
      .annotateContext(OpenApi.annotations({ summary: "This OpenAPI 3.1 document" }))
  )
  .add(
    HttpApiEndpoint.get("docs", "/docs")
      .addSuccess(Html)
      .annotateContext(OpenApi.annotations({ summary: "An interactive reference rendering this document" }))
  )
  .add(
    HttpApiEndpoint.get("healthz", "/healthz")
      .addSuccess(S.Success(S.Health))
      .annotateContext(OpenApi.annotations({ summary: "Liveness: answers SUCCESS with the environment" }))
  )
  .annotateContext(
    OpenApi.annotations({
      title: "Service",
      description: "The developer dashboard, the mock's documents and liveness."
    })
  ) {}

/** `/dev/merchants/{appKey}/audit`: the callback endpoint audit (CONTRACT.md), mock only. */
export class AuditMenu extends HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.post("auditEndpoint", "/dev/merchants/:appKey/audit")
      .setPath(appKeyPath)
      .setPayload(AuditRequest)
      .addSuccess(S.Success(AuditReport))
      .addError(ErrorEnvelopes.NotFound)
      .addError(ErrorEnvelopes.Unauthorized)
      .addError(ErrorEnvelopes.UnsupportedMediaType)
      .annotateContext(
        OpenApi.annotations({
          summary: "Audit a callback endpoint: a battery of valid and forged callbacks, judged, within 60 s",
          description:
            "Sends callbacks shaped like this environment's real ones (valid, re-serialisable bodies, unknown fields, a retry, " +
            "5 concurrent duplicates, tampered and pretty-printed bodies, stale, future and mismatched timestamps, unknown key " +
            "version, a wrong key, another appKey, missing headers, malformed signatures, a replay) and answers the report. " +
            "Never follows redirects, never changes the notify URL, records no delivery; each check is also an `audit.check` event."
        })
      )
  )
  .middleware(DevAccess)
  .annotateContext(
    OpenApi.annotations({
      title: "Callback endpoint audit",
      description: "Is the merchant's callback endpoint right? (mock only)"
    })
  ) {}

/** `/dev/clock`: the mock's clock, moved forward by tests (CONTRACT.md "Faults and time"), mock only. */
export class ClockMenu extends HttpApiGroup.make("clock")
  .add(
    HttpApiEndpoint.get("getClock", "/dev/clock")
      .addSuccess(S.Success(ClockState))
      .annotateContext(OpenApi.annotations({ summary: "The mock's time and how far it has been moved forward" }))
  )
  .add(
    HttpApiEndpoint.post("advanceClock", "/dev/clock/advance")
      .setPayload(ClockAdvance)
      .addSuccess(S.Success(ClockState))
      .addError(ErrorEnvelopes.UnsupportedMediaType)
      .annotateContext(
        OpenApi.annotations({
          summary: 'Move the mock\'s clock forward by `ms` (body `{"ms": n}`, n > 0)',
          description:
            "Orders whose time to live has passed on the moved clock expire and send their callbacks at once; delivery " +
            "retries that have come due are sent. Signatures stay on real time: request timestamps are judged, and " +
            "callbacks stamped, against the real clock. Replicas on PostgreSQL share one clock."
        })
      )
  )
  .middleware(DevAccess)
  .annotateContext(
    OpenApi.annotations({ title: "Clock", description: "The mock's clock, moved forward by tests (mock only)." })
  ) {}

/** `/dev/faults`: faults the mock injects on purpose, seeded (CONTRACT.md "Faults and time"), mock only. */
export class FaultsMenu extends HttpApiGroup.make("faults")
  .add(
    HttpApiEndpoint.get("getFaults", "/dev/faults")
      .addSuccess(S.Success(FaultSetting))
      .annotateContext(OpenApi.annotations({ summary: "The fault setting in force (`{}`: none)" }))
  )
  .add(
    HttpApiEndpoint.put("setFaults", "/dev/faults")
      .setPayload(FaultSetting)
      .addSuccess(S.Success(FaultSetting))
      .addError(ErrorEnvelopes.UnsupportedMediaType)
      .annotateContext(
        OpenApi.annotations({
          summary: "Replace the whole fault setting (`{}` clears it); its PRNG starts again from `seed`",
          description:
            "Create-order: `serverErrorRate` answers internalError before anything is stored; `lostResponseRate` stores " +
            "the order and answers internalError (a retry with the same orderId returns it); `timeoutRate` stores it and " +
            "holds the connection 30 s, then closes it; `delayMs` [min, max] delays the answer. A faulted answer carries " +
            "`X-Mock-Fault: <name>`, and each fault is a `fault` event on `/dev/events`. `/dev/`, `/h5/`, `/healthz` and " +
            "the documents are never faulted. Callbacks: `duplicateRate` delivers an acknowledged callback again (same " +
            "`eventId`, signed afresh); `delayMs` [min, max] delays each callback's first attempt (a clock advance past it " +
            "sends it at once); `outOfOrder` sends callbacks that are due together in a shuffled order, never one order's " +
            "out of their order; each is a `fault` event too. The same seed and the same requests give the same faults. " +
            "The setting is stored: replicas on one PostgreSQL database share it (each keeps its own PRNG, started again " +
            "from the seed when it takes a setting in)."
        })
      )
  )
  .add(
    HttpApiEndpoint.del("clearFaults", "/dev/faults")
      .addSuccess(S.Success(FaultSetting))
      .annotateContext(OpenApi.annotations({ summary: "Clear the fault setting (the same as `PUT {}`)" }))
  )
  .middleware(DevAccess)
  .annotateContext(
    OpenApi.annotations({ title: "Faults", description: "Faults injected on purpose, seeded (mock only)." })
  ) {}

/**
 * The whole surface. Every route also answers serviceUnavailable 503 (with `Retry-After`) while the
 * database cannot be reached, and internalError 500 for a bug (logged with its request id).
 */
export class MockApi extends HttpApi.make("mock")
  .add(ServiceApi)
  .add(DevMenu)
  .add(AuditMenu)
  .add(ClockMenu)
  .add(FaultsMenu)
  .add(Checkout)
  .add(ServiceRoutes)
  // What every route can answer: the app's own routing, body and decode answers, a database away, and a bug.
  .addError(ErrorEnvelopes.ParamError)
  .addError(ErrorEnvelopes.NotFound)
  .addError(ErrorEnvelopes.MethodNotAllowed)
  .addError(ErrorEnvelopes.PayloadTooLarge)
  .addError(ErrorEnvelopes.UnsupportedMediaType)
  .addError(ErrorEnvelopes.ServiceUnavailable)
  .addError(ErrorEnvelopes.InternalError)
  .annotateContext(
    OpenApi.annotations({
      title: "Merchant Payment Connect mock",
      version: "2",
      description:
        "A faithful emulator of the Merchant Payment Connect service. `/openapi/v2/*` is the service's own API; " +
        "`/dev/*` is the mock's developer menu; `/h5/*` the hosted checkout pages. The callbacks the mock sends are under `webhooks`.",
      transform: completeDocument
    })
  ) {}
