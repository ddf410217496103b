/**
 * `pc merchants create|show|keys add|keys disable|keys enable`: the merchant and its public keys on the mock's
 * developer menu. `create` registers a given public key or a key pair it makes (`--generate-key`), and
 * saves the new appKey, key version, key file and mock URL in the profile.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { keyFile } from "../Input.js"
import { type GeneratedKeyPair, generateKeyPair } from "../KeyFiles.js"
import { type MockAdminError, using } from "../MockAdmin.js"
import { type CliFailure, colour, json, print, usage } from "../Output.js"
import { flags, readProfile, requireAppKey, writeProfile, withSettings } from "../Settings.js"

const create = Command.make(
  "create",
  {
    baseUrl: flags.baseUrl,
    publicKey: Options.file("public-key", { exists: "yes" }).pipe(
      Options.optional,
      Options.withDescription("your SPKI public key (PEM); or --generate-key")
    ),
    generateKey: Options.directory("generate-key").pipe(
      Options.optional,
      Options.withDescription(
        "make a new key pair in this directory (as npx pc keys generate does) and register it; the private key file is saved in the profile"
      )
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
      const { publicKeyFile, privateKeyFile, generated } = yield* keysOf(o)
      const publicKeyPem = yield* keyFile(publicKeyFile, "public key file")
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
        ...(privateKeyFile === undefined ? {} : { "key-file": privateKeyFile })
      })
      yield* print(o.json, { ...merchant, ...(generated ?? {}), profile: file }, (r) => [
        ...(generated === undefined
          ? []
          : [
              `${colour.green("generated")} a ${generated.bits}-bit RSA key pair (fingerprint ${generated.fingerprint})`,
              `private key (keep secret, mode 0600): ${generated.privateKeyFile}`,
              `public key:                           ${generated.publicKeyFile}`
            ]),
        `${colour.green("created")} merchant ${r.appKey} (key version ${r.keyVersion})`,
        `saved as the profile's app-key${privateKeyFile === undefined ? "" : " and key-file"} in ${r.profile}`,
        colour.dim("next: npx pc listen --forward-to http://localhost:3000/webhooks/payment --trigger order.paid")
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Register a merchant on the mock with your public key (or a key pair made here); appKey and key file are saved in the profile.\n" +
      "Example: npx pc merchants create --generate-key ./keys"
  )
)

/** The public key to register and the private key file to save: given, or generated (never both). */
const keysOf = (o: {
  readonly publicKey: Option.Option<string>
  readonly generateKey: Option.Option<string>
  readonly keyFile: Option.Option<string>
}): Effect.Effect<
  {
    readonly publicKeyFile: string
    readonly privateKeyFile: string | undefined
    readonly generated?: GeneratedKeyPair
  },
  CliFailure
> => {
  if (Option.isSome(o.generateKey)) {
    if (Option.isSome(o.publicKey) || Option.isSome(o.keyFile)) {
      return Effect.fail(
        usage(
          "--generate-key makes the key pair itself: give it alone, or --public-key with --key-file",
          "pc merchants create --generate-key ./keys"
        )
      )
    }
    return Effect.map(
      generateKeyPair(
        o.generateKey.value,
        2048,
        `register the existing pair: npx pc merchants create --public-key ${o.generateKey.value}/merchant-public.pem --key-file ${o.generateKey.value}/merchant-private.pem, or give --generate-key another directory`
      ),
      (generated) => ({ publicKeyFile: generated.publicKeyFile, privateKeyFile: generated.privateKeyFile, generated })
    )
  }
  if (Option.isNone(o.publicKey)) {
    return Effect.fail(
      usage(
        "give --public-key FILE (with --key-file for its private half) or --generate-key DIR",
        "pc merchants create --generate-key ./keys"
      )
    )
  }
  return Effect.succeed({
    publicKeyFile: o.publicKey.value,
    // The profile holds an absolute path, so commands run from another directory find the key.
    privateKeyFile: Option.isSome(o.keyFile) ? resolve(o.keyFile.value) : undefined
  })
}

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
).pipe(Command.withDescription("Show the configured merchant and its key versions.\nExample: npx pc merchants show"))

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
        `uploaded as key version ${r.keyVersion}; sign with it: npx pc config set key-version ${r.keyVersion}`
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Upload another public key (key rotation).\nExample: npx pc merchants keys add new-public.pem"
  )
)

/** `pc merchants keys disable|enable N`: one key version's status, the same command either way. */
const keyStatus = (move: "disable" | "enable", description: string) =>
  Command.make(
    move,
    {
      baseUrl: flags.baseUrl,
      appKey: flags.appKey,
      version: Args.integer({ name: "N" }).pipe(Args.withDescription("the key version")),
      json
    },
    withSettings((o, settings) =>
      Effect.gen(function* () {
        const appKey = yield* requireAppKey(settings)
        const moved = yield* using(
          settings,
          (admin): Effect.Effect<{ readonly version: number; readonly status: string }, MockAdminError> =>
            move === "disable"
              ? admin.disableMerchantKey(appKey, o.version)
              : admin.enableMerchantKey(appKey, o.version)
        )
        yield* print(o.json, moved, (r) => [`key version ${r.version} is ${r.status}`])
      })
    )
  ).pipe(Command.withDescription(`${description}\nExample: npx pc merchants keys ${move} 1`))

const disable = keyStatus("disable", "Disable a key version.")
const enable = keyStatus("enable", "Enable a disabled key version again.")

/** `pc merchants`. */
export const merchants = Command.make("merchants").pipe(
  Command.withDescription("Merchants on the mock.\nExample: npx pc merchants create --generate-key ./keys"),
  Command.withSubcommands([
    create,
    show,
    Command.make("keys").pipe(
      Command.withDescription("The merchant's public keys.\nExample: npx pc merchants keys add new-public.pem"),
      Command.withSubcommands([add, disable, enable])
    )
  ])
)
