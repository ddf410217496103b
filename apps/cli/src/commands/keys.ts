/**
 * `pc keys generate` and `pc keys inspect`: the command-line shell over `KeyFiles` (a merchant key
 * pair written to disk; a key file's type, size and SPKI SHA-256 fingerprint, never the private key).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type { KeyPair } from "@pc/crypto-node"
import * as Effect from "effect/Effect"
import { generateKeyPair, inspectKey } from "../KeyFiles.js"
import { colour, json, print, run } from "../Output.js"

const bits = Options.choice("bits", ["2048", "3072", "4096"]).pipe(
  Options.withDefault("2048" as const),
  Options.withDescription("RSA modulus length")
)
const out = Options.directory("out").pipe(
  Options.withDefault("."),
  Options.withDescription("directory for merchant-private.pem and merchant-public.pem (made if missing)")
)

const generate = Command.make("generate", { bits, out, json }, (options) =>
  run(
    options.json,
    Effect.gen(function* () {
      const generated = yield* generateKeyPair(
        options.out,
        Number(options.bits) as KeyPair.ModulusLength,
        "choose another directory with --out"
      )
      yield* print(options.json, generated, (r) => [
        `${colour.green("generated")} a ${r.bits}-bit RSA key pair`,
        `private key (keep secret, mode 0600): ${r.privateKeyFile}`,
        `public key (upload it):              ${r.publicKeyFile}`,
        `fingerprint (SPKI SHA-256):          ${r.fingerprint}`,
        colour.dim(`next: npx pc merchants create --public-key ${r.publicKeyFile} --key-file ${r.privateKeyFile}`)
      ])
    })
  )
).pipe(
  Command.withDescription(
    "Generate a merchant RSA key pair: PKCS#8 private key (mode 0600) and SPKI public key.\n" +
      "Example: npx pc keys generate --bits 2048 --out ./keys"
  )
)

const inspect = Command.make(
  "inspect",
  { file: Args.file({ name: "FILE", exists: "yes" }).pipe(Args.withDescription("a PEM key file")), json },
  (options) =>
    run(
      options.json,
      Effect.flatMap(inspectKey(options.file), (facts) =>
        print(options.json, facts, (f) => [
          `file:        ${f.file}`,
          `type:        RSA ${f.type} key (${f.format})`,
          `bits:        ${f.bits}`,
          `fingerprint: ${f.fingerprint} (SHA-256 of the SPKI public key)`
        ])
      )
    )
).pipe(
  Command.withDescription(
    "Show a key file's type, size and SPKI SHA-256 fingerprint (never the private key).\n" +
      "Example: npx pc keys inspect ./keys/merchant-public.pem"
  )
)

/** `pc keys`: generate and inspect merchant key pairs. */
export const keys = Command.make("keys").pipe(
  Command.withDescription("Merchant RSA keys.\nExample: npx pc keys generate --out ./keys"),
  Command.withSubcommands([generate, inspect])
)
