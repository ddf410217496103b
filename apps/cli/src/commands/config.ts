/**
 * `pc config set|unset|show`: the profile that settings fall back to after flags and environment
 * variables. It holds the private key's path, never the key; `show` redacts the developer token.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { json, print, run } from "../Output.js"
import { checkSetting, configFile, readProfile, resolve, settingNames, writeProfile } from "../Settings.js"

const name = Args.choice(
  settingNames.map((n) => [n, n] as const),
  { name: "NAME" }
).pipe(Args.withDescription(settingNames.join(", ")))

const set = Command.make("set", { name, value: Args.text({ name: "VALUE" }), json }, (o) =>
  run(
    o.json,
    Effect.gen(function* () {
      const value = yield* checkSetting(o.name, o.value)
      const profile = yield* readProfile()
      const file = yield* writeProfile({ ...profile, [o.name]: value })
      yield* print(o.json, { file, name: o.name, value: o.name === "dev-token" ? "<redacted>" : value }, (r) => [
        `${r.name} = ${r.value} (saved in ${r.file})`
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Save a setting in the profile (mode 0600). key-file takes the key's path, never the key.\n" +
      "Example: npx pc config set key-file ./keys/merchant-private.pem"
  )
)

const unset = Command.make("unset", { name, json }, (o) =>
  run(
    o.json,
    Effect.gen(function* () {
      const { [o.name]: _removed, ...rest } = yield* readProfile()
      const file = yield* writeProfile(rest)
      yield* print(o.json, { file, name: o.name }, (r) => [`${r.name} removed from ${r.file}`])
    })
  )
).pipe(Command.withDescription("Remove a setting from the profile.\nExample: npx pc config unset app-key"))

const show = Command.make("show", { json }, (o) =>
  run(
    o.json,
    Effect.gen(function* () {
      const settings = yield* resolve()
      const redacted = settings.devToken === undefined ? undefined : "<redacted>"
      const result = {
        file: configFile(),
        settings: {
          env: settings.env,
          "base-url": settings.baseUrl,
          "app-key": settings.appKey ?? null,
          "key-file": settings.keyFile ?? null,
          "key-version": settings.keyVersion,
          "dev-token": redacted ?? null
        },
        sources: settings.sources
      }
      yield* print(o.json, result, (r) => [
        `profile: ${r.file}`,
        ...Object.entries(r.settings).map(
          ([key, value]) =>
            `${key.padEnd(12)} ${value ?? "(not set)"}${value === null ? "" : ` (${r.sources[key as keyof typeof r.sources] ?? "default"})`}`
        )
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Show the settings in force and where each comes from (flag, env, profile, default); secrets redacted.\n" +
      "Example: npx pc config show --json"
  )
)

/** `pc config`. */
export const config = Command.make("config").pipe(
  Command.withDescription(
    "The saved profile.\nExample: npx pc config set app-key 7e57c0de-0000-4000-8000-000000000001"
  ),
  Command.withSubcommands([set, unset, show])
)
