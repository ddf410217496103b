/**
 * `pc callbacks sign|verify|resend`: a callback signed with a test platform key (`@pc/client/testing`),
 * a callback checked exactly as a merchant's endpoint would (`@pc/client`'s verifier), and a delivery
 * queued again on the mock, and the callback endpoint audit (`pc callbacks audit`).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Testing } from "@pc/client"
import { NodeCrypto } from "@pc/crypto-node"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { bodyBytes, keyFile } from "../Input.js"
import { type AuditReport, using } from "../MockAdmin.js"
import { colour, json, line, note, print, run, usage } from "../Output.js"
import { platformKeyRing, verifyCallback } from "../PlatformKeys.js"
import { flags, requireAppKey, resolve, withSettings } from "../Settings.js"

const body = Options.text("body").pipe(
  Options.withDescription("the exact callback body: JSON text, or @FILE (@- for stdin)")
)

const utf8 = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8")

const sign = Command.make(
  "sign",
  {
    appKey: flags.appKey,
    body,
    platformKey: Options.file("platform-key", { exists: "yes" }).pipe(
      Options.withDescription("the TEST platform private key (PEM) to sign with")
    ),
    keyVersion: Options.integer("key-version").pipe(Options.withDefault(1), Options.withDescription("X-R-Key-Version")),
    timestamp: Options.integer("ts").pipe(
      Options.optional,
      Options.withDescription("X-R-Ts in Unix epoch milliseconds (default now)")
    ),
    json
  },
  (o) =>
    run(
      o.json,
      Effect.gen(function* () {
        const settings = yield* resolve({ appKey: o.appKey })
        const appKey = yield* requireAppKey(settings)
        const text = utf8(yield* bodyBytes(o.body))
        const pem = yield* keyFile(o.platformKey, "platform key file")
        const signed = yield* Effect.tryPromise({
          try: () =>
            Testing.signCallback({
              appKey,
              platformPrivateKeyPem: pem,
              event: text,
              keyVersion: o.keyVersion,
              timestamp: o.timestamp._tag === "Some" ? o.timestamp.value : undefined,
              crypto: NodeCrypto
            }),
          catch: (error) =>
            usage(`${o.platformKey} cannot sign: ${error instanceof Error ? error.message : String(error)}`)
        })
        yield* print(
          o.json,
          { appKey, headers: signed.headers, timestamp: signed.timestamp, keyVersion: signed.keyVersion },
          (r) => Object.entries(r.headers).map(([name, value]) => `${name}: ${value}`)
        )
      })
    )
).pipe(
  Command.withDescription(
    "Sign a callback body with a TEST platform key, for your webhook handler's tests.\n" +
      "Example: npx pc callbacks sign --body @event.json --platform-key test-platform-private.pem"
  )
)

const verify = Command.make(
  "verify",
  {
    env: flags.env,
    baseUrl: flags.baseUrl,
    appKey: flags.appKey,
    body,
    ts: Options.text("ts").pipe(Options.withDescription("the X-R-Ts header")),
    signature: Options.text("signature").pipe(Options.withDescription("the X-R-Signature header")),
    callbackKeyVersion: Options.text("key-version").pipe(Options.withDescription("the X-R-Key-Version header")),
    platformKey: Options.file("platform-key", { exists: "yes" }).pipe(
      Options.optional,
      Options.withDescription("the platform public key (PEM); default: the mock's keys for --env")
    ),
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const appKey = yield* requireAppKey(settings)
      const environment = settings.env
      const raw = yield* bodyBytes(o.body)
      let pems: Map<number, string>
      if (o.platformKey._tag === "Some") {
        const version = Number(o.callbackKeyVersion)
        if (!Number.isSafeInteger(version) || version < 1) {
          return yield* usage(
            `--key-version must be a whole number from 1, not ${JSON.stringify(o.callbackKeyVersion)}`
          )
        }
        pems = new Map([[version, yield* keyFile(o.platformKey.value, "platform key file")]])
      } else {
        const keys = yield* using(settings, (admin) => admin.platformKeys())
        pems = new Map(keys.filter((k) => k.environment === environment).map((k) => [k.version, k.publicKeyPem]))
        if (pems.size === 0) return yield* usage(`the mock at ${settings.baseUrl} has no ${environment} platform keys`)
      }
      const platformKeys = yield* platformKeyRing(environment, pems)
      const event = yield* verifyCallback(
        { environment, appKey, platformKeys },
        {
          headers: { "X-R-Ts": o.ts, "X-R-Signature": o.signature, "X-R-Key-Version": o.callbackKeyVersion },
          body: raw
        }
      )
      yield* print(
        o.json,
        { verdict: "verified", environment, keyVersion: Number(o.callbackKeyVersion), event },
        (r) => [
          `${colour.green("verified")}: ${r.event.eventType} ${r.event.orderSn} (${r.event.outerOrder}) ` +
            `${r.event.amount} ${r.event.currency}, ${environment} platform key v${r.keyVersion}`
        ]
      )
    })
  )
).pipe(
  Command.withDescription(
    "Verify a callback as your endpoint must: exact body bytes, X-R-Ts, X-R-Signature, X-R-Key-Version.\n" +
      "Example: npx pc callbacks verify --body @body.json --ts 1700000000000 --signature 'base64...' --key-version 1 --env sandbox"
  )
)

const resend = Command.make(
  "resend",
  {
    baseUrl: flags.baseUrl,
    id: Args.text({ name: "ID" }).pipe(Args.withDescription("the delivery id (pc orders show lists them)")),
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const delivery = yield* using(settings, (admin) => admin.resendCallback(o.id))
      yield* print(o.json, delivery, (d) => [
        `queued again: delivery ${d.id} (${d.eventType} of ${d.orderSn}), ${d.attemptCount} attempt(s) so far`
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Queue a callback delivery again, signed afresh.\nExample: npx pc callbacks resend DELIVERY_ID"
  )
)

type AuditCheck = AuditReport["checks"][number]

const verdictText = (check: AuditCheck) =>
  check.verdict === "pass"
    ? colour.green("pass")
    : check.verdict === "warn"
      ? colour.yellow("warn")
      : colour.red("fail")

const checkLine = (check: AuditCheck) =>
  `${verdictText(check)} ${check.id.padEnd(22)} ${String(check.status ?? "-").padStart(3)} ${String(check.ms).padStart(5)} ms  ${check.detail}`

const audit = Command.make(
  "audit",
  {
    baseUrl: flags.baseUrl,
    appKey: flags.appKey,
    url: Args.text({ name: "URL" }).pipe(
      Args.optional,
      Args.withDescription("the endpoint to audit (default: the merchant's notify URL)")
    ),
    orderSn: Options.text("order-sn").pipe(
      Options.optional,
      Options.withDescription("an order your app created, for handlers that refuse unknown orders")
    ),
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const appKey = yield* requireAppKey(settings)
      const input = {
        url: Option.getOrUndefined(o.url),
        orderSn: Option.getOrUndefined(o.orderSn)
      }
      const printed = new Set<string>()
      const show = (check: AuditCheck) =>
        printed.has(check.id)
          ? Effect.void
          : Effect.zipRight(
              Effect.sync(() => printed.add(check.id)),
              line(checkLine(check))
            )
      let report: AuditReport
      if (o.json) report = yield* using(settings, (admin) => admin.audit(appKey, input))
      else {
        // Each check as it is judged: the mock's audit.check events, read while the audit runs.
        const connected = yield* Deferred.make<void>()
        report = yield* using(settings, (admin) =>
          Effect.gen(function* () {
            const reader = yield* admin.events(Deferred.succeed(connected, undefined)).pipe(
              Stream.runForEach((event) =>
                event.type === "audit.check" && event.appKey === appKey ? show(event.check) : Effect.void
              ),
              Effect.ignore,
              Effect.fork
            )
            // Without the events (an old mock, a proxy that buffers), the report still prints whole.
            yield* Deferred.await(connected).pipe(Effect.timeout("3 seconds"), Effect.ignore)
            yield* note(`auditing ${input.url ?? "the notify URL"} for ${appKey} (up to 60 s)`)
            const answer = yield* admin.audit(appKey, input)
            yield* Effect.sleep("100 millis")
            yield* Fiber.interrupt(reader)
            return answer
          })
        )
      }
      if (o.json) yield* line(JSON.stringify(report))
      else {
        yield* Effect.forEach(report.checks, show, { discard: true })
        const count = (verdict: string) => report.checks.filter((c) => c.verdict === verdict).length
        yield* line(
          `${report.passed ? colour.green("passed") : colour.red("failed")}: ${count("pass")} pass, ${count("warn")} warn, ${count("fail")} fail, ${report.url} (${report.environment}, order ${report.orderSn})`
        )
      }
      if (!report.passed) process.exitCode = 1
    })
  )
).pipe(
  Command.withDescription(
    "Audit your callback endpoint: valid and forged callbacks, judged (exit 1 when a check fails).\n" +
      "Example: npx pc callbacks audit http://127.0.0.1:3000/callbacks"
  )
)

/** `pc callbacks`. */
export const callbacks = Command.make("callbacks").pipe(
  Command.withDescription(
    "Sign, verify and resend callbacks.\nExample: npx pc callbacks verify --body @body.json --ts TS --signature SIG --key-version 1 --env sandbox"
  ),
  Command.withSubcommands([sign, verify, resend, audit])
)
