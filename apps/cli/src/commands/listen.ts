/**
 * `pc listen`: a local endpoint for the mock's callbacks. It sets itself (or a given URL) as the
 * merchant's notify URL, verifies each callback with `@pc/client`'s verifier and the platform keys
 * from the mock, prints it, and with `--forward-to` passes the exact bytes and headers on to the
 * merchant's own endpoint, answering the mock with that endpoint's status so retries behave as in
 * production. `--trigger EVENT` produces one callback once the listener is registered (as
 * `pc trigger` does), so a first verified callback takes one command.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type { Callback } from "@pc/client"
import { type Environment, Headers } from "@pc/core"
import type * as Wire from "@pc/core/Wire"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { using } from "../MockAdmin.js"
import { type CliFailure, colour, json, usage } from "../Output.js"
import { platformKeyRing, verifyCallback } from "../PlatformKeys.js"
import { progressLine } from "../Progress.js"
import { flags, requireAppKey, requireKeyFile, type Settings, withSettings } from "../Settings.js"
import { eventMoves, type Triggered, triggerEvent, triggeredOrderDefaults } from "../TriggerEvent.js"
import { triggeredLines } from "./trigger.js"

const eventTypes = eventMoves.map(([eventType]) => eventType)

/** One line of `pc listen --json`: the listener is ready, `--trigger` moved an order, or one callback arrived. */
export type ListenEvent =
  | {
      readonly type: "ready"
      readonly url: string
      readonly notifyUrl: string
      readonly appKey: string
      readonly environment: string
      readonly forwardTo: string | null
    }
  | ({ readonly type: "triggered" } & Triggered)
  | {
      readonly type: "callback"
      readonly verdict: "verified" | "refused" | "skipped"
      readonly reason: string | null
      readonly message: string | null
      readonly eventType: string | null
      readonly orderSn: string | null
      readonly outerOrder: string | null
      readonly amount: string | null
      readonly currency: string | null
      readonly keyVersion: string | null
      readonly forwarded: { readonly url: string; readonly status: number | null; readonly error: string | null } | null
      readonly answered: number
    }

const readBody = (request: IncomingMessage, limit: number): Promise<Uint8Array | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        request.destroy()
        resolve(undefined)
      } else chunks.push(chunk)
    })
    request.once("end", () => resolve(new Uint8Array(Buffer.concat(chunks))))
    request.once("error", reject)
  })

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name.toLowerCase()]
  return typeof value === "string" ? value : undefined
}

const humanLine = (event: Extract<ListenEvent, { type: "callback" }>): string => {
  const verdict =
    event.verdict === "verified"
      ? colour.green("verified")
      : event.verdict === "skipped"
        ? colour.dim("skipped (not in --events)")
        : colour.red(`refused: ${event.reason}`)
  const what =
    event.eventType === null
      ? "callback"
      : `${event.eventType} ${event.orderSn} (${event.outerOrder}) ${event.amount} ${event.currency}`
  const forwarded =
    event.forwarded === null
      ? ""
      : ` -> ${event.forwarded.url} ${event.forwarded.status ?? `failed: ${event.forwarded.error}`}`
  return `${new Date().toISOString()} ${what} key v${event.keyVersion ?? "?"} ${verdict}${forwarded} [answered ${event.answered}]${
    event.verdict === "refused" && event.message !== null ? `\n  ${event.message}` : ""
  }`
}

/** The platform key ring of the mock's environment, fetched afresh (after a rotation, too). */
const fetchPlatformKeys = (settings: Settings) =>
  Effect.gen(function* () {
    const keys = yield* using(settings, (admin) => admin.platformKeys())
    const environment = keys[0]?.environment
    if (
      environment === undefined ||
      (environment !== "sandbox" && environment !== "production" && environment !== "gray")
    ) {
      return yield* usage(`the mock at ${settings.baseUrl} lists no platform keys`)
    }
    const ring = yield* platformKeyRing(
      environment,
      new Map(keys.filter((k) => k.environment === environment).map((k) => [k.version, k.publicKeyPem]))
    )
    return { environment: environment as Environment.Environment, ring }
  })

const options = {
  baseUrl: flags.baseUrl,
  appKey: flags.appKey,
  host: Options.text("host").pipe(Options.withDefault("127.0.0.1"), Options.withDescription("address to listen on")),
  port: Options.integer("port").pipe(Options.withDefault(0), Options.withDescription("port (0: any free one)")),
  forwardTo: Options.text("forward-to").pipe(
    Options.optional,
    Options.withDescription("your endpoint: each callback's exact bytes and headers are sent on to it")
  ),
  events: Options.text("events").pipe(
    Options.optional,
    Options.withDescription(
      "comma-separated event types to handle (default all): order.paid,order.failed,order.expired"
    )
  ),
  notifyUrl: Options.text("notify-url").pipe(
    Options.optional,
    Options.withDescription("register this URL instead of the listener's own (a tunnel in front of it)")
  ),
  trigger: Options.choiceWithValue("trigger", eventMoves).pipe(
    Options.optional,
    Options.withDescription(
      "once listening, create and move an order so one such callback arrives (as npx pc trigger does); needs the key file"
    )
  ),
  keyFile: flags.keyFile,
  keyVersion: flags.keyVersion,
  json
}

/** `pc listen`. */
export const listen = Command.make(
  "listen",
  options,
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const appKey = yield* requireAppKey(settings)
      const wanted = Option.match(o.events, {
        onNone: () => new Set<string>(eventTypes),
        onSome: (text) =>
          new Set(
            text
              .split(",")
              .map((s) => s.trim())
              .filter((s) => s !== "")
          )
      })
      for (const type of wanted) {
        if (!(eventTypes as ReadonlyArray<string>).includes(type)) {
          return yield* usage(`--events: ${JSON.stringify(type)} is not one of ${eventTypes.join(", ")}`)
        }
      }
      const forwardTo = Option.getOrUndefined(o.forwardTo)
      if (forwardTo !== undefined && !/^https?:\/\//.test(forwardTo)) {
        return yield* usage(`--forward-to must be an http(s) URL, not ${JSON.stringify(forwardTo)}`)
      }
      // --trigger signs a create-order: say now, not after the listener is up, that no key is set.
      if (Option.isSome(o.trigger)) yield* requireKeyFile(settings)
      let keys = yield* fetchPlatformKeys(settings)
      const progress = yield* progressLine("starting the listener", o)
      const counts = { verified: 0, refused: 0, skipped: 0 }
      const waiting = () =>
        `waiting for callbacks: ${counts.verified} verified, ${counts.refused} refused` +
        `${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ""} (Ctrl-C to stop)`
      const emit = (event: ListenEvent) => {
        if (event.type === "callback") {
          counts[event.verdict]++
          progress.update(waiting())
        }
        if (o.json) progress.log(JSON.stringify(event))
        else if (event.type === "callback") progress.log(humanLine(event))
        else if (event.type === "triggered") for (const text of triggeredLines(event)) progress.log(text)
      }

      const verify = async (input: Callback.CallbackInput) => {
        const attempt = () =>
          Effect.runPromiseExit(
            verifyCallback({ environment: keys.environment, appKey, platformKeys: keys.ring }, input)
          )
        let exit = await attempt()
        if (Exit.isFailure(exit) && JSON.stringify(exit.cause).includes("UnknownKeyVersion")) {
          // A key version published after start (a rotation): fetch the keys again, then decide.
          const fresh = await Effect.runPromiseExit(fetchPlatformKeys(settings))
          if (Exit.isSuccess(fresh)) {
            keys = fresh.value
            exit = await attempt()
          }
        }
        return exit
      }

      const handle = async (request: IncomingMessage, response: ServerResponse) => {
        const body = await readBody(request, 1024 * 1024)
        const answer = (status: number, text: string) => {
          response.writeHead(status, { "content-type": "application/json" }).end(text)
          return status
        }
        const keyVersion = header(request, Headers.CallbackHeaders.keyVersion) ?? null
        if (request.method !== "POST" || body === undefined) {
          answer(request.method !== "POST" ? 405 : 413, '{"code":"paramError","msg":"not a callback","data":null}')
          return
        }
        const exit = await verify({ headers: request.headers, body })
        let event: Wire.CallbackEvent | undefined
        let refusal: CliFailure | undefined
        if (Exit.isSuccess(exit)) event = exit.value
        else {
          const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
          refusal = failure
        }
        const base = {
          type: "callback" as const,
          reason: refusal === undefined ? null : (refusal.code ?? refusal.kind),
          message: refusal === undefined ? null : refusal.message,
          eventType: event?.eventType ?? null,
          orderSn: event?.orderSn ?? null,
          outerOrder: event?.outerOrder ?? null,
          amount: event?.amount ?? null,
          currency: event?.currency ?? null,
          keyVersion
        }
        if (event !== undefined && !wanted.has(event.eventType)) {
          emit({
            ...base,
            verdict: "skipped",
            forwarded: null,
            answered: answer(200, '{"code":"SUCCESS","msg":null,"data":null}')
          })
          return
        }
        if (forwardTo !== undefined) {
          // The exact bytes and the signature headers, so the merchant's endpoint verifies for itself;
          // its status goes back to the mock, so a refusal there is retried as it would be in production.
          const forwardHeaders: Record<string, string> = {
            "content-type": header(request, "content-type") ?? "application/json"
          }
          for (const name of Object.values(Headers.CallbackHeaders)) {
            const value = header(request, name)
            if (value !== undefined) forwardHeaders[name] = value
          }
          let forwarded: { url: string; status: number | null; error: string | null }
          let status: number
          let text: string
          try {
            const reply = await fetch(forwardTo, {
              method: "POST",
              headers: forwardHeaders,
              body: Buffer.from(body),
              redirect: "manual",
              signal: AbortSignal.timeout(10_000)
            })
            text = await reply.text()
            status = reply.status
            forwarded = { url: forwardTo, status, error: null }
          } catch (error) {
            const cause = (error as { cause?: { code?: string } }).cause?.code
            forwarded = { url: forwardTo, status: null, error: cause ?? (error as Error).message }
            status = 502
            text = '{"code":"internalError","msg":"pc listen could not reach the forward-to endpoint","data":null}'
          }
          emit({
            ...base,
            verdict: event === undefined ? "refused" : "verified",
            forwarded,
            answered: answer(status, text)
          })
          return
        }
        const status = event !== undefined ? 200 : base.reason === "MalformedBody" ? 400 : 401
        emit({
          ...base,
          verdict: event === undefined ? "refused" : "verified",
          forwarded: null,
          answered: answer(
            status,
            JSON.stringify({
              code: event !== undefined ? "SUCCESS" : status === 400 ? "paramError" : "signError",
              msg: base.message,
              data: null
            })
          )
        })
      }

      const server = yield* Effect.acquireRelease(
        Effect.async<ReturnType<typeof createServer>, CliFailure>((resume) => {
          const server = createServer((request, response) => {
            handle(request, response).catch((error) => {
              if (!response.headersSent) response.writeHead(500).end()
              process.stderr.write(`pc listen: ${(error as Error).message}\n`)
            })
          })
          server.once("error", (error) =>
            resume(Effect.fail(usage(`cannot listen on ${o.host}:${o.port}: ${(error as NodeJS.ErrnoException).code}`)))
          )
          server.listen(o.port, o.host, () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.sync(() => server.close())
      )
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : o.port
      const host = o.host.includes(":") ? `[${o.host}]` : o.host
      const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}/`
      const notifyUrl = Option.getOrElse(o.notifyUrl, () => url)
      // The notify URL goes back to what it was when listen ends (Ctrl-C included): left on this
      // listener's port, it sent the next `pc trigger`'s callback to a port nothing listens on.
      const before = (yield* using(settings, (admin) => admin.merchant(appKey))).notifyUrl
      yield* Effect.acquireRelease(
        using(settings, (admin) => admin.setNotifyUrl(appKey, notifyUrl)),
        () => {
          const say = (line: string) => Effect.sync(() => process.stderr.write(`${colour.dim(line)}\n`))
          if (before === notifyUrl) return Effect.void
          if (before === null) {
            return say(`the notify URL stays ${notifyUrl}: ${appKey} had none before, and the mock keeps one once set`)
          }
          return using(settings, (admin) => admin.setNotifyUrl(appKey, before)).pipe(
            Effect.zipRight(say(`notify URL put back to ${before}`)),
            Effect.catchAll((failure) =>
              say(`could not put the notify URL back to ${before}: ${failure.message}; it stays ${notifyUrl}`)
            )
          )
        }
      )
      const ready: ListenEvent = {
        type: "ready",
        url,
        notifyUrl,
        appKey,
        environment: keys.environment,
        forwardTo: forwardTo ?? null
      }
      if (o.json) progress.log(JSON.stringify(ready))
      else {
        progress.log(
          `${colour.green("Ready!")} listening on ${url} for ${keys.environment} callbacks of ${appKey}` +
            (forwardTo === undefined ? "" : `, forwarding to ${forwardTo}`)
        )
        progress.log(
          colour.dim(
            `notify URL set to ${notifyUrl}${Option.isSome(o.trigger) ? "" : "; trigger one with: npx pc trigger order.paid"} (Ctrl-C to stop)`
          )
        )
      }
      if (Option.isSome(o.trigger)) {
        progress.update("creating and moving an order")
        emit({ type: "triggered", ...(yield* triggerEvent(settings, o.trigger.value, triggeredOrderDefaults)) })
      }
      progress.update(waiting())
      return yield* Effect.never
    }).pipe(Effect.scoped)
  )
).pipe(
  Command.withDescription(
    "Receive the mock's callbacks here: verify, print and optionally forward each one.\n" +
      "Example: npx pc listen --forward-to http://localhost:3000/webhooks/payment --trigger order.paid"
  )
)
