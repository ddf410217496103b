/**
 * `pc merchants create|show|keys add|keys disable`: the merchant and its public keys on the mock's
 * developer menu. `create` saves the new appKey in the profile when none is set there yet.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { keyFile } from "../Input.js"
import { using } from "../MockAdmin.js"
import { colour, json, print } from "../Output.js"
import { flags, readProfile, requireAppKey, writeProfile, withSettings } from "../Settings.js"

const create = Command.make(
  "create",
  {
    baseUrl: flags.baseUrl,
    publicKey: Options.file("public-key", { exists: "yes" }).pipe(
      Options.withDescription("your SPKI public key (PEM)")
    ),
    notifyUrl: Options.text("notify-url").pipe(Options.optional, Options.withDescription("where callbacks go")),
    keyFile: Options.text("key-file").pipe(
      Options.optional,
      Options.withDescription("the matching private key file, saved in the profile as key-file")
    ),
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const publicKeyPem = yield* keyFile(o.publicKey, "public key file")
      const merchant = yield* using(settings, (admin) =>
        admin.createMerchant({ publicKeyPem, notifyUrl: Option.getOrUndefined(o.notifyUrl) })
      )
      // The next commands (listen, trigger, orders create) use this merchant without flags.
      const profile = yield* readProfile()
      const file = yield* writeProfile({
        ...profile,
        "app-key": merchant.appKey,
        "key-version": String(merchant.keyVersion),
        "base-url": settings.baseUrl,
        ...(Option.isSome(o.keyFile) ? { "key-file": o.keyFile.value } : {})
      })
      yield* print(o.json, { ...merchant, profile: file }, (r) => [
        `${colour.green("created")} merchant ${r.appKey} (key version ${r.keyVersion})`,
        `saved as the profile's app-key in ${r.profile}`
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Register a merchant on the mock with your public key; its appKey is saved in the profile.\n" +
      "Example: pc merchants create --public-key ./keys/merchant-public.pem --key-file ./keys/merchant-private.pem"
  )
)

const show = Command.make(
  "show",
  { baseUrl: flags.baseUrl, appKey: flags.appKey, json },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const appKey = yield* requireAppKey(settings)
      const merchant = yield* using(settings, (admin) => admin.merchant(appKey))
      yield* print(o.json, merchant, (m) => [
        `merchant ${m.appKey}`,
        `notify URL: ${m.notifyUrl ?? "(none)"}`,
        ...m.keys.map((k) => `key v${k.version}: ${k.status}, uploaded ${k.uploadedAt}`)
      ])
    })
  )
).pipe(Command.withDescription("Show the configured merchant and its key versions.\nExample: pc merchants show"))

const add = Command.make(
  "add",
  {
    baseUrl: flags.baseUrl,
    appKey: flags.appKey,
    file: Args.file({ name: "FILE", exists: "yes" }).pipe(Args.withDescription("the new public key (PEM)")),
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const appKey = yield* requireAppKey(settings)
      const publicKeyPem = yield* keyFile(o.file, "public key file")
      const added = yield* using(settings, (admin) => admin.addMerchantKey(appKey, publicKeyPem))
      yield* print(o.json, added, (r) => [
        `uploaded as key version ${r.keyVersion}; sign with it: pc config set key-version ${r.keyVersion}`
      ])
    })
  )
).pipe(
  Command.withDescription("Upload another public key (key rotation).\nExample: pc merchants keys add new-public.pem")
)

const disable = Command.make(
  "disable",
  {
    baseUrl: flags.baseUrl,
    appKey: flags.appKey,
    version: Args.integer({ name: "N" }).pipe(Args.withDescription("the key version")),
    json
  },
  withSettings((o, settings) =>
    Effect.gen(function* () {
      const appKey = yield* requireAppKey(settings)
      const disabled = yield* using(settings, (admin) => admin.disableMerchantKey(appKey, o.version))
      yield* print(o.json, disabled, (r) => [`key version ${r.version} is ${r.status}`])
    })
  )
).pipe(Command.withDescription("Disable a key version.\nExample: pc merchants keys disable 1"))

/** `pc merchants`. */
export const merchants = Command.make("merchants").pipe(
  Command.withDescription(
    "Merchants on the mock.\nExample: pc merchants create --public-key ./keys/merchant-public.pem"
  ),
  Command.withSubcommands([
    create,
    show,
    Command.make("keys").pipe(
      Command.withDescription("The merchant's public keys.\nExample: pc merchants keys add new-public.pem"),
      Command.withSubcommands([add, disable])
    )
  ])
)
