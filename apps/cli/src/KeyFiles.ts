/**
 * Merchant key files on disk: a new key pair written with `@pc/crypto-node`'s KeyPair (PKCS#8
 * private key mode 0600, SPKI public key, never overwriting a file), and what a key file holds
 * (type, size, SPKI SHA-256 fingerprint) read with `@pc/core`'s Pem. The private key is never printed.
 * `pc keys generate`, `pc keys inspect` and `pc merchants create --generate-key` all go through here.
 */
import * as Pem from "@pc/core/Pem"
import { KeyPair } from "@pc/crypto-node"
import * as Effect from "effect/Effect"
import { createHash, createPrivateKey, createPublicKey } from "node:crypto"
import { constants } from "node:fs"
import { mkdir, open } from "node:fs/promises"
import { join, resolve } from "node:path"
import { keyFile } from "./Input.js"
import { type CliFailure, usage } from "./Output.js"

/** What `pc keys inspect` reports about a key file. */
export interface KeyFacts {
  readonly file: string
  readonly type: "private" | "public"
  readonly format: Pem.KeyFormat
  readonly bits: number
  /** SHA-256 of the DER SubjectPublicKeyInfo, hex: `openssl pkey -pubout -outform DER | openssl dgst -sha256`. */
  readonly fingerprint: string
}

/** The files of a new key pair and the public key's facts. */
export interface GeneratedKeyPair {
  readonly privateKeyFile: string
  readonly publicKeyFile: string
  readonly bits: number
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
 * import { inspectKey } from "./KeyFiles.js"
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

/** Writes a new file only: an existing key is never overwritten. */
const writeNew = (path: string, text: string, mode: number, hint: string) =>
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
        ? usage(`${path} exists; keys are never overwritten`, hint)
        : usage(`cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`)
  })

/**
 * Generates a merchant key pair into `dir` (made if missing): `merchant-private.pem` (PKCS#8, mode
 * 0600) and `merchant-public.pem` (SPKI). Fails with a usage `CliFailure` when the directory cannot
 * be made or either file exists (`whenExists` is the hint that failure gives).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./KeyFiles.js"
 *
 * generateKeyPair("./keys", 2048, "choose another directory with --out")
 * ```
 */
export const generateKeyPair = (
  dir: string,
  bits: KeyPair.ModulusLength,
  whenExists: string
): Effect.Effect<GeneratedKeyPair, CliFailure> =>
  Effect.gen(function* () {
    const folder = resolve(dir)
    yield* Effect.tryPromise({
      try: () => mkdir(folder, { recursive: true }),
      catch: (error) => usage(`cannot make ${folder}: ${(error as NodeJS.ErrnoException).code ?? error}`)
    })
    const privateKeyFile = join(folder, "merchant-private.pem")
    const publicKeyFile = join(folder, "merchant-public.pem")
    const pair = yield* Effect.promise(() => KeyPair.generate(bits))
    yield* writeNew(privateKeyFile, pair.privateKeyPem, 0o600, whenExists)
    yield* writeNew(publicKeyFile, pair.publicKeyPem, 0o644, whenExists)
    const facts = yield* inspectKey(publicKeyFile)
    return { privateKeyFile, publicKeyFile, bits: facts.bits, fingerprint: facts.fingerprint }
  })
