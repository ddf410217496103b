/** `pc platform-keys list|rotate`: the mock's platform keys, which sign callbacks. */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
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
  { baseUrl: flags.baseUrl, json, now: Options.boolean("now") },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      if (o.now) {
        const key = yield* using(settings, (admin) => admin.rotatePlatformKey())
        return yield* print(o.json, key, (k) => [
          `${k.environment} platform key v${k.version} is now current; it signs every callback from now on`
        ])
      }
      // As the service does in production: publish first, so merchants add the key before it signs;
      // the next rotate (once they have) makes it sign.
      const keys = yield* using(settings, (admin) => admin.platformKeys())
      const current = keys.find((k) => k.status === "current")?.version ?? 0
      const pending = keys.find((k) => k.status === "published" && k.version > current)
      if (pending !== undefined) {
        const key = yield* using(settings, (admin) => admin.activatePlatformKey(pending.version))
        return yield* print(o.json, key, (k) => [
          `${k.environment} platform key v${k.version} is now current; it signs every callback from now on (v${current} stays published)`
        ])
      }
      const key = yield* using(settings, (admin) => admin.rotatePlatformKey({ publishOnly: true }))
      yield* print(o.json, key, (k) => [
        `${k.environment} platform key v${k.version} is published; callbacks are still signed with v${current}.`,
        "Add it to your platform keys, then run `pc platform-keys rotate` again to make it sign."
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Rotate the platform key: publish a new key, then make it sign on the next rotate (or at once with --now).\nExample: npx pc platform-keys rotate"
  )
)

/** `pc platform-keys`. */
export const platformKeys = Command.make("platform-keys").pipe(
  Command.withDescription("The mock's platform keys.\nExample: npx pc platform-keys list"),
  Command.withSubcommands([list, rotate])
)
