/**
 * `pc keys generate` and `pc keys inspect`: a merchant key pair made with `@pc/crypto-node`'s
 * KeyPair, and what a key file holds (type, size, SPKI SHA-256 fingerprint), read with `@pc/core`'s
 * Pem. The private key itself is never printed.
 */
import { Args, Command, Options } from "@effect/cli"
import * as Pem from "@pc/core/Pem"
import { KeyPair } from "@pc/crypto-node"
import { Effect } from "effect"
import { createHash, createPrivateKey, createPublicKey } from "node:crypto"
import { constants } from "node:fs"
import { mkdir, open } from "node:fs/promises"
import { join, resolve } from "node:path"
import { keyFile } from "../Input.js"
import { type CliFailure, colour, json, print, run, usage } from "../Output.js"

/** What `pc keys inspect` reports about a key file. */
export interface KeyFacts {
  readonly file: string
  readonly type: "private" | "public"
  readonly format: Pem.KeyFormat
  readonly bits: number
  /** SHA-256 of the DER SubjectPublicKeyInfo, hex: `openssl pkey -pubout -outform DER | openssl dgst -sha256`. */
  readonly fingerprint: string
}

/** The SPKI SHA-256 fingerprint of a key given as DER, the same for a private key and its public half. */
const fingerprintOf = (key: Pem.RsaKeyDer): string => {
  const der = Buffer.from(key.der)
  const publicKey =
    key.format === "pkcs8" || key.format === "pkcs1-private"
      ? createPublicKey(createPrivateKey({ key: der, format: "der", type: key.format === "pkcs8" ? "pkcs8" : "pkcs1" }))
      : createPublicKey({ key: der, format: "der", type: key.format === "spki" ? "spki" : "pkcs1" })
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex")
}

/**
 * Reads a key file's facts. Fails with a usage `CliFailure` for an unreadable file or text that is
 * not an RSA key (the message names the file and the reason, never the key).
 *
 * @example
 * ```ts
 * import { inspectKey } from "./keys.js"
 *
 * inspectKey("keys/merchant-public.pem") // { type: "public", bits: 2048, fingerprint: "9f..." }
 * ```
 */
export const inspectKey = (file: string): Effect.Effect<KeyFacts, CliFailure> =>
  Effect.flatMap(keyFile(file), (text) =>
    Effect.try({
      try: (): KeyFacts => {
        const isPrivate = /-----BEGIN (?:RSA |ENCRYPTED )?PRIVATE KEY-----/.test(text)
        const key = isPrivate ? Pem.decodePrivateKey(text) : Pem.decodePublicKey(text)
        return {
          file: resolve(file),
          type: isPrivate ? "private" : "public",
          format: key.format,
          bits: key.modulusLength,
          fingerprint: fingerprintOf(key)
        }
      },
      catch: (error) => usage(`${file} is not an RSA key: ${error instanceof Error ? error.message : String(error)}`)
    })
  )

const bits = Options.choice("bits", ["2048", "3072", "4096"]).pipe(
  Options.withDefault("2048" as const),
  Options.withDescription("RSA modulus length")
)
const out = Options.directory("out").pipe(
  Options.withDefault("."),
  Options.withDescription("directory for merchant-private.pem and merchant-public.pem (made if missing)")
)

/** Writes a new file only: an existing key is never overwritten. */
const writeNew = (path: string, text: string, mode: number) =>
  Effect.tryPromise({
    try: async () => {
      const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode)
      try {
        await handle.writeFile(text)
        // The mode given to open is filtered by the umask; the private key must be 0600 whatever it is.
        await handle.chmod(mode)
      } finally {
        await handle.close()
      }
    },
    catch: (error) =>
      (error as NodeJS.ErrnoException).code === "EEXIST"
        ? usage(`${path} exists; keys are never overwritten`, "choose another directory with --out")
        : usage(`cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`)
  })

const generate = Command.make("generate", { bits, out, json }, (options) =>
  run(
    options.json,
    Effect.gen(function* () {
      const dir = resolve(options.out)
      yield* Effect.tryPromise({
        try: () => mkdir(dir, { recursive: true }),
        catch: (error) => usage(`cannot make ${dir}: ${(error as NodeJS.ErrnoException).code ?? error}`)
      })
      const pair = yield* Effect.promise(() => KeyPair.generate(Number(options.bits) as KeyPair.ModulusLength))
      const privateKeyFile = join(dir, "merchant-private.pem")
      const publicKeyFile = join(dir, "merchant-public.pem")
      yield* writeNew(privateKeyFile, pair.privateKeyPem, 0o600)
      yield* writeNew(publicKeyFile, pair.publicKeyPem, 0o644)
      const facts = yield* inspectKey(publicKeyFile)
      yield* print(
        options.json,
        { privateKeyFile, publicKeyFile, bits: facts.bits, fingerprint: facts.fingerprint },
        (r) => [
          `${colour.green("generated")} a ${r.bits}-bit RSA key pair`,
          `private key (keep secret, mode 0600): ${r.privateKeyFile}`,
          `public key (upload it):              ${r.publicKeyFile}`,
          `fingerprint (SPKI SHA-256):          ${r.fingerprint}`,
          colour.dim(`next: pc merchants create --public-key ${r.publicKeyFile}`)
        ]
      )
    })
  )
).pipe(
  Command.withDescription(
    "Generate a merchant RSA key pair: PKCS#8 private key (mode 0600) and SPKI public key.\n" +
      "Example: pc keys generate --bits 2048 --out ./keys"
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
      "Example: pc keys inspect ./keys/merchant-public.pem"
  )
)

/** `pc keys`: generate and inspect merchant key pairs. */
export const keys = Command.make("keys").pipe(
  Command.withDescription("Merchant RSA keys.\nExample: pc keys generate --out ./keys"),
  Command.withSubcommands([generate, inspect])
)
