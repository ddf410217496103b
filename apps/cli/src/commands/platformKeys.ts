/** `pc platform-keys list|rotate`: the mock's platform keys, which sign callbacks. */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { using } from "../MockAdmin.js"
import { json, print } from "../Output.js"
import { flags, withSettings } from "../Settings.js"

const list = Command.make(
  "list",
  { baseUrl: flags.baseUrl, json },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const keys = yield* using(settings, (admin) => admin.platformKeys())
      yield* print(o.json, keys, (all) => all.map((k) => `${k.environment} v${k.version}: ${k.status}`))
    })
  )
).pipe(
  Command.withDescription("List the platform keys (public PEM with --json).\nExample: npx pc platform-keys list --json")
)

const rotate = Command.make(
  "rotate",
  { baseUrl: flags.baseUrl, json },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const key = yield* using(settings, (admin) => admin.rotatePlatformKey())
      yield* print(o.json, key, (k) => [
        `${k.environment} platform key v${k.version} is now current; it signs every callback from now on`
      ])
    })
  )
).pipe(Command.withDescription("Rotate the platform key.\nExample: npx pc platform-keys rotate"))

/** `pc platform-keys`. */
export const platformKeys = Command.make("platform-keys").pipe(
  Command.withDescription("The mock's platform keys.\nExample: npx pc platform-keys list"),
  Command.withSubcommands([list, rotate])
)
