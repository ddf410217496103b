/**
 * `pc faults set|show|clear`: the faults the mock injects on purpose (CONTRACT.md "Faults and
 * time"), seeded so that a failing run can be replayed.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { readFaultSetting } from "../FaultsInput.js"
import { type FaultSetting, using } from "../MockAdmin.js"
import { CliFailure, json, print } from "../Output.js"
import { flags, withSettings } from "../Settings.js"

const describeFaults = (setting: FaultSetting) =>
  Object.keys(setting).length === 0 ? ["no faults"] : [`faults: ${JSON.stringify(setting)}`]

const show = Command.make(
  "show",
  { baseUrl: flags.baseUrl, json },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      yield* print(o.json, yield* using(settings, (admin) => admin.faults.show()), describeFaults)
    })
  )
).pipe(Command.withDescription("Show the faults the mock injects.\nExample: npx pc faults show"))

const set = Command.make(
  "set",
  {
    baseUrl: flags.baseUrl,
    json,
    setting: Args.text({ name: "FILE|JSON" }).pipe(
      Args.withDescription('a JSON file, or inline JSON: {"seed":7,"createOrder":{"lostResponseRate":0.3}}')
    )
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const setting = yield* Either.mapLeft(
        readFaultSetting(o.setting),
        (message) => new CliFailure({ kind: "Usage", message: message.replace("--faults", "FILE|JSON") })
      )
      yield* print(o.json, yield* using(settings, (admin) => admin.faults.set(setting)), describeFaults)
    })
  )
).pipe(
  Command.withDescription(
    'Replace the whole fault setting (the same seed and requests give the same faults); replicas on one PostgreSQL database share it.\nCallbacks: {"callbacks":{"duplicateRate":0.5,"delayMs":[800,1200],"outOfOrder":true}}\nExample: npx pc faults set \'{"seed":7,"createOrder":{"lostResponseRate":0.3}}\''
  )
)

const clear = Command.make(
  "clear",
  { baseUrl: flags.baseUrl, json },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      yield* print(o.json, yield* using(settings, (admin) => admin.faults.clear()), describeFaults)
    })
  )
).pipe(Command.withDescription("Clear the faults: the mock behaves again.\nExample: npx pc faults clear"))

/** `pc faults`. */
export const faults = Command.make("faults").pipe(
  Command.withDescription(
    'Faults the mock injects on purpose, seeded.\nExample: npx pc faults set \'{"seed":7,"createOrder":{"lostResponseRate":0.3}}\''
  ),
  Command.withSubcommands([show, set, clear])
)
