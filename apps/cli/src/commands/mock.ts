/**
 * `pc mock`: runs the mock server for one environment (CONTRACT.md "Running the mock"). These
 * options are the one parser of the mock's flags (`pnpm mock` runs this command too); the mock's
 * `check` is the one validation of what they give.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Environment } from "@pc/core"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { ConfigError, check, defaultDbFile, defaults, type MockConfigShape, readyMessage, start } from "@pc/mock-server"
import { readFaultSetting } from "../FaultsInput.js"
import { whenLaunchersGone } from "../process/Launchers.js"
import { limitServerHeap } from "../process/ServerHeap.js"

const env = Options.choice("env", Environment.environments).pipe(
  Options.withDefault(defaults.environment),
  Options.withDescription("the environment this process emulates")
)
// Where the mock runs, its storage and its token can also come from the environment (PC_MOCK_*): a
// container image sets them once (0.0.0.0, a volume), and `docker run IMAGE mock --env production`
// still gets them. A flag wins over its variable. The mock's token has its own name, not the client
// commands' PC_DEV_TOKEN: a token a developer keeps in their shell for a shared mock must not lock
// the developer menu of every local `pc mock` they start.
const host = Options.text("host").pipe(
  Options.withFallbackConfig(Config.string("PC_MOCK_HOST")),
  Options.withDefault(defaults.host),
  Options.withDescription("address to bind (else PC_MOCK_HOST)")
)
const port = Options.integer("port").pipe(
  Options.withFallbackConfig(Config.integer("PC_MOCK_PORT")),
  Options.withDefault(defaults.port),
  Options.withDescription("port, 0 to 65535 (0: any free one; else PC_MOCK_PORT)")
)
const db = Options.text("db").pipe(
  Options.withFallbackConfig(Config.string("PC_MOCK_DB")),
  Options.optional,
  Options.withDescription(
    "SQLite file, :memory:, or a postgres:// URL shared by several replicas (else PC_MOCK_DB; default .pc-mock/<env>.sqlite)"
  )
)
const publicUrl = Options.text("public-url").pipe(
  Options.withFallbackConfig(Config.string("PC_MOCK_PUBLIC_URL")),
  Options.optional,
  Options.withDescription(
    "http(s) base of the URLs handed out (h5Url; else PC_MOCK_PUBLIC_URL); default http://host:port"
  )
)
const callbackBackoffMs = Options.integer("callback-backoff-ms").pipe(
  Options.withDefault(defaults.callbackBackoffMs),
  Options.withDescription("first callback retry delay in ms (at least 1); doubles each attempt")
)
const callbackTimeoutMs = Options.integer("callback-timeout-ms").pipe(
  Options.withDefault(defaults.callbackTimeoutMs),
  Options.withDescription("time allowed for one callback attempt, in ms")
)
const orderTtlMs = Options.integer("order-ttl-ms").pipe(
  Options.withDefault(defaults.orderTtlMs),
  Options.withDescription("orders still CREATED after this many ms expire")
)
const bodyLimitBytes = Options.integer("body-limit-bytes").pipe(
  Options.withDefault(defaults.bodyLimitBytes),
  Options.withDescription("larger request bodies get payloadTooLarge")
)
const rateLimitPerMinute = Options.integer("rate-limit-per-minute").pipe(
  Options.optional,
  Options.withDescription("create-order requests per appKey per minute before rateLimited (default: no limit)")
)

const devToken = Options.text("dev-token").pipe(
  Options.withFallbackConfig(Config.string("PC_MOCK_DEV_TOKEN")),
  Options.optional,
  Options.withDescription(
    "token the developer menu (/dev) requires as Authorization: Bearer <token> (else PC_MOCK_DEV_TOKEN); bound to a non-loopback address without it, one is generated and printed"
  )
)

const faults = Options.text("faults").pipe(
  Options.optional,
  Options.withDescription(
    'faults injected on purpose, seeded: a JSON file or inline JSON, e.g. \'{"seed":7,"createOrder":{"lostResponseRate":0.3}}\' (pc faults set changes it later)'
  )
)

const flags = {
  env,
  host,
  port,
  db,
  publicUrl,
  callbackBackoffMs,
  callbackTimeoutMs,
  orderTtlMs,
  bodyLimitBytes,
  rateLimitPerMinute,
  devToken,
  faults
}

type Flags = Command.Command.ParseConfig<typeof flags>

const configOf = (options: Flags): MockConfigShape => ({
  ...defaults,
  environment: options.env,
  host: options.host,
  port: options.port,
  db: Option.getOrElse(options.db, () => defaultDbFile(options.env)),
  publicUrl: Option.getOrUndefined(options.publicUrl),
  callbackBackoffMs: options.callbackBackoffMs,
  callbackTimeoutMs: options.callbackTimeoutMs,
  orderTtlMs: options.orderTtlMs,
  bodyLimitBytes: options.bodyLimitBytes,
  rateLimitPerMinute: Option.getOrUndefined(options.rateLimitPerMinute),
  devToken: Option.getOrUndefined(options.devToken),
  faults: Option.match(options.faults, {
    onNone: () => undefined,
    onSome: (given) => Either.getOrThrowWith(readFaultSetting(given), (message) => new ConfigError({ message }))
  })
})

/**
 * Ends the command: a configuration the mock refuses is a usage error (its
 * message, exit code 2); a start that fails (a port in use, another mock on the database) says why
 * with exit code 1.
 */
const report = (error: unknown) =>
  Effect.sync(() => {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exitCode = 2
      return
    }
    console.error("the mock failed to start:", error instanceof Error ? error.message : String(error))
    process.exitCode = 1
  })

/**
 * Why the mock stops, for the line that says it is stopping: the first of Ctrl-C, SIGTERM or a
 * launcher gone wins.
 */
let stopReason: string | undefined

/**
 * Notes which signal stops the mock. The runtime (NodeRuntime.runMain) interrupts the mock on the
 * first SIGINT or SIGTERM and then removes its own listeners; a launcher that passes Ctrl-C on (pnpm,
 * npm exec) sends the mock a second SIGINT while it is still closing, and with no listener left that
 * second one killed it before it said anything, so pnpm reported "ELIFECYCLE Command failed". These
 * listeners stay until the process ends, so a repeated signal changes nothing and the mock finishes
 * its stop and exits 0.
 */
const noteStopSignals = Effect.sync(() => {
  process.on("SIGINT", () => {
    stopReason ??= "Ctrl-C (SIGINT)"
  })
  process.on("SIGTERM", () => {
    stopReason ??= "SIGTERM"
  })
})

/**
 * Stops the mock as on SIGTERM when a process that launched it is gone (`kill` of a backgrounded
 * `npx pnpm mock`: see process/Launchers.ts), instead of serving on, orphaned.
 */
const stopWhenLaunchersGone = Effect.acquireRelease(
  Effect.sync(() =>
    whenLaunchersGone((gone) => {
      const who = gone.name === "" ? `pid ${gone.pid}` : `${gone.name}, pid ${gone.pid}`
      stopReason ??= `the process that launched it (${who}) ended`
      process.kill(process.pid, "SIGTERM")
    })
  ),
  (stopWatching) => Effect.sync(stopWatching)
)

/** The mock's heap while it serves: see process/ServerHeap.ts for the figures. */
const limitHeapWhileServing = Effect.acquireRelease(
  Effect.sync(() => limitServerHeap({ maxSemiSpaceMb: 8, heapGrowingPercent: 50 })),
  (release) => Effect.sync(release)
)

/**
 * `pc mock` owns its process: when the reader of its stdout goes away (`pc mock | head -3`), the
 * write fails with EPIPE, which unhandled would end the mock. Handled, it ends the log only: the
 * mock's log writer writes to a failed stream no more. Never removed: the process ends with the mock.
 */
const serveOnWhenStdoutFails = Effect.sync(() => {
  process.stdout.on("error", () => undefined)
})

/**
 * The last ready lines: how to stop the mock and what to run next, named as this checkout runs pc
 * (the repository's `pnpm mock` script, or an installed `npx pc mock`).
 */
const nextSteps = (): string => {
  const pnpm = /\bpnpm\/(\S+)/.exec(process.env.npm_config_user_agent ?? "")?.[1]
  const viaScript = pnpm !== undefined && ["mock", "pc"].includes(process.env.npm_lifecycle_event ?? "")
  const pc = viaScript ? `npx -y pnpm@${pnpm} pc` : "npx pc"
  return [
    "  stop:                 Ctrl-C",
    `  next:                 in another terminal, ${pc} merchants create --generate-key ./keys`
  ].join("\n")
}

/** Serves until the runtime interrupts it (SIGINT, SIGTERM), then closes the server and the database. */
const serve = (config: MockConfigShape) =>
  Effect.zipRight(
    Effect.zipRight(Effect.zipRight(serveOnWhenStdoutFails, noteStopSignals), limitHeapWhileServing),
    Effect.acquireRelease(Effect.tryPromise({ try: () => start(config), catch: (error) => error }), (server) =>
      Console.log(`stopping the mock: ${stopReason ?? "its command ended"}`).pipe(
        Effect.zipRight(Effect.promise(() => server.close())),
        Effect.zipRight(Console.log("the mock stopped"))
      )
    ).pipe(
      Effect.tap((server) => Console.log(`${readyMessage(server)}\n${nextSteps()}`)),
      Effect.zipRight(stopWhenLaunchersGone),
      Effect.zipRight(Effect.never)
    )
  ).pipe(Effect.scoped)

export const mock = Command.make("mock", flags, (options) =>
  Effect.try({ try: () => check(configOf(options)), catch: (error) => error }).pipe(
    Effect.flatMap(serve),
    Effect.catchAll(report)
  )
).pipe(
  Command.withDescription(
    "Run the Merchant Payment Connect mock server (Ctrl-C, SIGINT or SIGTERM stops it).\n" +
      "Example: npx pc mock --env production --port 4010"
  )
)
