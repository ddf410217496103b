/**
 * `pc sign`: the four authentication headers (or a ready `curl` command) for a request body given
 * as exact bytes, signed with `@pc/client`'s RequestSigning and the configured merchant key.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { RequestSigning } from "@pc/client"
import * as Wire from "@pc/core/Wire"
import * as Effect from "effect/Effect"
import { bodyBytes } from "../Input.js"
import { signerRing } from "../MerchantKey.js"
import { json, print } from "../Output.js"
import { flags, requireAppKey, withSettings } from "../Settings.js"

/** Quotes one argument for a POSIX shell. */
const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`

const options = {
  ...flags,
  body: Options.text("body").pipe(
    Options.withDescription("the exact request body: JSON text, or @FILE (@- for stdin); the bytes are signed as given")
  ),
  method: Options.text("method").pipe(Options.withDefault("POST"), Options.withDescription("HTTP method")),
  path: Options.text("path").pipe(
    Options.withDefault(Wire.CREATE_ORDER_PATH),
    Options.withDescription("the path as sent (no host, no query)")
  ),
  curl: Options.boolean("curl").pipe(Options.withDescription("print a ready curl command instead of the headers")),
  json
}

/** `pc sign`. */
export const sign = Command.make(
  "sign",
  options,
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const appKey = yield* requireAppKey(settings)
      const ring = yield* signerRing(settings)
      const body = yield* bodyBytes(o.body)
      const headers = yield* Effect.promise(() =>
        RequestSigning.sign(ring, { method: o.method, path: o.path, appKey, timestamp: Date.now(), body })
      )
      const url = `${settings.baseUrl}${o.path}`
      const fromFile = o.body.startsWith("@") && o.body !== "@-"
      const curl = [
        "curl",
        "-sS",
        "-X",
        o.method.toUpperCase(),
        shellQuote(url),
        "-H",
        shellQuote("Content-Type: application/json"),
        ...Object.entries(headers).flatMap(([name, value]) => ["-H", shellQuote(`${name}: ${value}`)]),
        "--data-binary",
        // curl sends a file's bytes untouched with --data-binary @FILE; inline text is quoted whole.
        fromFile ? shellQuote(o.body) : shellQuote(Buffer.from(body).toString("utf8"))
      ].join(" ")
      const result = { method: o.method.toUpperCase(), url, headers, ...(o.curl ? { curl } : {}) }
      yield* print(o.json, result, (r) =>
        o.curl ? [curl] : Object.entries(r.headers).map(([name, value]) => `${name}: ${value}`)
      )
    })
  )
).pipe(
  Command.withDescription(
    "Sign a request body as given: the four X-R-* headers, or a ready curl command.\n" +
      "Example: npx pc sign --body @order.json --curl"
  )
)
