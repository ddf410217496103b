/**
 * `pc`: a thin @effect/cli shell over the packages. Commands live one group per file in
 * `commands/`; this file only composes them and runs on Node (loaded by `bin.ts`).
 */
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"
import { clock } from "./commands/clock.js"
import { faults } from "./commands/faults.js"
import { callbacks } from "./commands/callbacks.js"
import { config } from "./commands/config.js"
import { keys } from "./commands/keys.js"
import { listen } from "./commands/listen.js"
import { logs } from "./commands/logs.js"
import { merchants } from "./commands/merchants.js"
import { mock } from "./commands/mock.js"
import { orders } from "./commands/orders.js"
import { platformKeys } from "./commands/platformKeys.js"
import { sign } from "./commands/sign.js"
import { trigger } from "./commands/trigger.js"
import { bashCompletions, bashCompletionsRequested } from "./Completions.js"
import { renderHelp } from "./Help.js"
import { colourOnlyOnTerminal } from "./Output.js"
import { unknownFlagMessage } from "./UnknownFlags.js"

const pc = Command.make("pc").pipe(
  Command.withDescription(
    "Merchant Payment Connect from the command line.\nExample: npx pc merchants create --generate-key ./keys"
  ),
  Command.withSubcommands([
    mock,
    keys,
    sign,
    callbacks,
    clock,
    config,
    faults,
    merchants,
    orders,
    platformKeys,
    trigger,
    listen,
    logs
  ])
)

// The version of the installed package (dist/ sits one folder below package.json).
const { version } = createRequire(import.meta.url)("../package.json") as { readonly version: string }

const cli = Command.run(pc, { name: "pc", version })

const unknown = unknownFlagMessage(pc.descriptor, process.argv.slice(2))

/** The words before `--`; help is asked for by `--help` or `-h` among them. */
const words = process.argv.slice(2)
const ownWords = words.includes("--") ? words.slice(0, words.indexOf("--")) : words
/** The terminal's width (COLUMNS where it is no terminal), at most 120: longer lines read badly. */
const width = Math.min(120, process.stdout.columns ?? (Number(process.env.COLUMNS) || 80))
// An unknown flag before --help is named first, as the parser would have (UnknownFlags.ts).
const help =
  unknown === undefined && ownWords.some((word) => word === "--help" || word === "-h")
    ? renderHelp(pc.descriptor, ownWords, version, width)
    : undefined

const program = bashCompletionsRequested(process.argv)
  ? Effect.flatMap(bashCompletions(pc, "pc"), Console.log)
  : help !== undefined
    ? Effect.sync(() => process.stdout.write(help))
    : unknown !== undefined
      ? // Named here: the parser would stop at it and report the options after it as missing.
        Effect.zipRight(Console.error(unknown), Effect.fail(ValidationError.invalidArgument(HelpDoc.p(unknown))))
      : colourOnlyOnTerminal(cli(process.argv))

program.pipe(
  // Command.run (or the unknown-flag check) has already printed what is wrong with the command line:
  // a usage error, exit code 2.
  Effect.catchIf(ValidationError.isValidationError, () =>
    Effect.sync(() => {
      process.exitCode = 2
    })
  ),
  // What @effect/cli asks for (CliApp.Environment). Not NodeContext: its command executor and
  // worker manager serve no command of pc's, and loading and building them was a tenth of the start
  // of `pc mock` before its own.
  Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)),
  NodeRuntime.runMain({ disableErrorReporting: false })
)
