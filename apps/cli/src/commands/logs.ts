/**
 * `pc logs tail`: the mock's request log, live from `/dev/events`, with each create-order's
 * signature verdict and its cause (what the sandbox's `X-R-Signature-Check` says, readable).
 */
import * as Command from "@effect/cli/Command"
import type { MockEvent } from "@pc/mock-server"
import * as Stream from "effect/Stream"
import { using } from "../MockAdmin.js"
import { colour, json, line, note } from "../Output.js"
import { flags, withSettings } from "../Settings.js"

/** A `request` event of the mock. */
export type RequestEvent = Extract<MockEvent, { readonly type: "request" }>

const verdictColour = { valid: colour.green, invalid: colour.red, missing: colour.yellow, refused: colour.red } as const

/**
 * One request as a line: time, method, path, status, duration, request id and, for create-order,
 * the signature verdict with its cause.
 *
 * @example
 * ```ts
 * requestLine({ type: "request", at, requestId, method: "GET", path: "/healthz", status: 200, durationMs: 1 })
 * // "12:00:00.000 GET /healthz 200 1ms req=..."
 * ```
 */
export const requestLine = (event: RequestEvent): string => {
  const time = event.at.slice(11, 23)
  const status = event.status >= 400 ? colour.red(String(event.status)) : String(event.status)
  const signature =
    event.signature === undefined
      ? ""
      : `  signature ${verdictColour[event.signature.verdict](event.signature.verdict)}` +
        (event.signature.cause === null ? "" : `: ${event.signature.cause}`) +
        (event.signature.likelyCause === null ? "" : ` (likely: ${event.signature.likelyCause})`)
  return (
    `${colour.dim(time)} ${event.method} ${event.path} ${status} ${event.durationMs}ms ` +
    `${colour.dim(`req=${event.requestId}`)}${signature}`
  )
}

const tail = Command.make(
  "tail",
  { baseUrl: flags.baseUrl, json },
  withSettings((o, settings) =>
    using(settings, (admin) =>
      admin
        .events(
          note(
            colour.dim(`tailing the requests of ${settings.baseUrl} (Ctrl-C to stop)`) // on stderr: never mixes with --json
          )
        )
        .pipe(
          Stream.filter((event): event is RequestEvent => event.type === "request"),
          Stream.runForEach((event) => line(o.json ? JSON.stringify(event) : requestLine(event)))
        )
    )
  )
).pipe(
  Command.withDescription(
    "Print the mock's requests as they happen, with each create-order's signature verdict and its likely cause; " +
      "--json prints one JSON object per line. Ends on Ctrl-C.\nExample: npx pc logs tail"
  )
)

/** `pc logs`. */
export const logs = Command.make("logs").pipe(
  Command.withDescription("The mock's request log.\nExample: npx pc logs tail --json"),
  Command.withSubcommands([tail])
)
