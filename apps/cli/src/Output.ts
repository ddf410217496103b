/**
 * How every `pc` command ends: one JSON document on stdout with `--json` (one per line for streams),
 * readable text otherwise (colour only on a TTY), and the exit code of the failure's kind:
 * 0 ok, 1 the service said no, 2 usage, 3 network or timeout.
 */
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/**
 * Why a command failed, by exit code: `Refused` (1) the service or the check said no, `Usage` (2)
 * the command line or the settings are wrong, `Network` (3) nothing answered in time.
 *
 * @example
 * ```ts
 * import { CliFailure } from "./Output.js"
 *
 * new CliFailure({ kind: "Usage", message: "no appKey: pass --app-key or run pc config set app-key ..." })
 * ```
 */
export class CliFailure extends Data.TaggedError("CliFailure")<{
  readonly kind: "Refused" | "Usage" | "Network"
  readonly message: string
  /** The service's code (`signError`, `paramError`, ...) or the client's error tag, when there is one. */
  readonly code?: string | undefined
  /** The likely cause and what to do about it. */
  readonly hint?: string | undefined
  /** More facts for `--json` readers (request id, key version, ...). */
  readonly details?: Readonly<Record<string, unknown>> | undefined
}> {}

/** The exit code of each kind of failure. */
export const exitCodes = { Refused: 1, Usage: 2, Network: 3 } as const

/** `--json`: the option every command takes. */
export const json = Options.boolean("json").pipe(
  Options.withDescription("print one JSON document on stdout (one per line for streams) and nothing else there")
)

// no-color.org: NO_COLOR set to anything but the empty string turns colour off.
const colourOn = (): boolean => process.stdout.isTTY === true && !process.env.NO_COLOR

const paint = (code: number) => (text: string) => (colourOn() ? `\u001b[${code}m${text}\u001b[0m` : text)

// ESC [ ... m: the colour and style codes @effect/cli's help and usage errors are printed with.
const sgr = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")
const plain = (args: ReadonlyArray<unknown>) =>
  args.map((arg) => (typeof arg === "string" ? arg.replace(sgr, "") : arg))

/**
 * Runs `program` (here: `@effect/cli`'s `Command.run`, which prints help and usage errors in colour
 * through the Console service) with a Console that drops colour codes when stdout is not a terminal
 * or NO_COLOR is set, so `pc --help | less` and logs read as plain text.
 *
 * @example
 * ```ts
 * import { colourOnlyOnTerminal } from "./Output.js"
 *
 * colourOnlyOnTerminal(cli(process.argv))
 * ```
 */
export const colourOnlyOnTerminal = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  colourOn()
    ? program
    : Console.consoleWith((current) =>
        Console.withConsole(program, {
          ...current,
          log: (...args) => current.log(...plain(args)),
          info: (...args) => current.info(...plain(args)),
          warn: (...args) => current.warn(...plain(args)),
          error: (...args) => current.error(...plain(args))
        })
      )

/** Colours for human output; plain text when stdout is not a terminal or NO_COLOR is set. */
export const colour = { green: paint(32), red: paint(31), yellow: paint(33), dim: paint(2), bold: paint(1) }

/** Writes one line on stdout (human text, or one JSON document). */
export const line = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

/** Writes one line on stderr: progress and notes that must never mix with `--json` output. */
export const note = (text: string) => Effect.sync(() => process.stderr.write(`${text}\n`))

/**
 * Prints a command's result: `value` as JSON with `--json`, else the human lines.
 *
 * @example
 * ```ts
 * import { print } from "./Output.js"
 *
 * print(true, { appKey }, () => [`appKey ${appKey}`])
 * ```
 */
export const print = <A>(asJson: boolean, value: A, human: (value: A) => ReadonlyArray<string>) =>
  asJson ? line(JSON.stringify(value)) : Effect.forEach(human(value), line, { discard: true })

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * Runs a command body and ends it: a `CliFailure` is printed (on stdout as `{"error": ...}` with
 * `--json`, on stderr otherwise) and sets its exit code; anything else unexpected exits 1 with its message.
 *
 * @example
 * ```ts
 * import { Command } from "@effect/cli"
 * import { json, run } from "./Output.js"
 *
 * Command.make("show", { json }, (options) => run(options.json, program))
 * ```
 */
export const run = <R>(asJson: boolean, program: Effect.Effect<void, CliFailure, R>): Effect.Effect<void, never, R> =>
  program.pipe(
    Effect.catchAll((failure) =>
      Effect.gen(function* () {
        const { kind, message, code, hint, details } = failure
        if (asJson) {
          yield* line(JSON.stringify({ error: { kind, code, message, hint, ...details } }))
        } else {
          yield* note(`${colour.red("error")}${code === undefined ? "" : ` (${code})`}: ${message}`)
          if (hint !== undefined) yield* note(`hint: ${hint}`)
        }
        process.exitCode = exitCodes[kind]
      })
    ),
    Effect.catchAllDefect((defect) =>
      Effect.gen(function* () {
        if (asJson) yield* line(JSON.stringify({ error: { kind: "Internal", message: describe(defect) } }))
        else yield* note(`${colour.red("error")}: ${describe(defect)}`)
        process.exitCode = 1
      })
    )
  )

/** A usage failure (exit code 2). */
export const usage = (message: string, hint?: string) => new CliFailure({ kind: "Usage", message, hint })
