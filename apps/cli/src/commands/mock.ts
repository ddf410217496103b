/** `pc mock`: runs the mock server for one environment (CONTRACT.md "Running the mock"). */
import { Command, Options } from "@effect/cli"
import { Environment } from "@pc/core"
import { Effect, Option } from "effect"
import { defaultDbFile, defaults, run } from "mock-server"

const env = Options.choice("env", Environment.environments).pipe(
  Options.withDefault(defaults.environment),
  Options.withDescription("the environment this process emulates")
)
const host = Options.text("host").pipe(Options.withDefault(defaults.host), Options.withDescription("address to bind"))
const port = Options.integer("port").pipe(
  Options.withDefault(defaults.port),
  Options.withDescription("port (0: any free one)")
)
const db = Options.text("db").pipe(
  Options.optional,
  Options.withDescription("SQLite file, or :memory: (default .pc-mock/<env>.sqlite)")
)
const publicUrl = Options.text("public-url").pipe(
  Options.optional,
  Options.withDescription("base of the URLs handed out (h5Url); default http://host:port")
)
const callbackBackoffMs = Options.integer("callback-backoff-ms").pipe(
  Options.withDefault(defaults.callbackBackoffMs),
  Options.withDescription("first callback retry delay in ms; doubles each attempt")
)

export const mock = Command.make("mock", { env, host, port, db, publicUrl, callbackBackoffMs }, (options) =>
  Effect.promise(() =>
    run({
      ...defaults,
      environment: options.env,
      host: options.host,
      port: options.port,
      db: Option.getOrElse(options.db, () => defaultDbFile(options.env)),
      publicUrl: Option.getOrUndefined(Option.map(options.publicUrl, (url) => url.replace(/\/+$/, ""))),
      callbackBackoffMs: options.callbackBackoffMs
    })
  ).pipe(Effect.zipRight(Effect.never))
).pipe(Command.withDescription("Run the Merchant Payment Connect mock server"))
