/**
 * Where a callback verifier finds a platform key it does not hold yet: a function of environment
 * and version (your secrets store, a file you deploy, the mock's `/dev/platform-keys`), with the
 * imported keys cached and a bounded refresh, so that a platform key rotation refuses no callback
 * and a forged `X-R-Key-Version` cannot make the verifier fetch on every request.
 *
 * @since 0.1.0
 */
import type { Crypto, Environment } from "@pc/core"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * Looks a platform public key up: its PEM (SPKI or PKCS#1) or bare Base64, or `undefined` when
 * there is no such key (yet). A thrown error or rejection means the lookup itself failed.
 *
 * @example
 * ```ts
 * import type { PlatformKeySource } from "@pc/client"
 *
 * const fromEnv: PlatformKeySource.FetchPlatformKey = (environment, version) =>
 *   process.env[`PC_PLATFORM_KEY_${environment.toUpperCase()}_V${version}`]
 * ```
 */
export type FetchPlatformKey = (
  environment: Environment.Environment,
  version: number
) => string | undefined | PromiseLike<string | undefined>

/**
 * The lookup failed (the store or the network), not "no such key": a callback signed with that
 * version is answered 500, so the service delivers it again later instead of dropping it.
 *
 * @example
 * ```ts
 * import { PlatformKeySource } from "@pc/client"
 *
 * const error = new PlatformKeySource.PlatformKeySourceError({ message: "vault unreachable", cause: undefined })
 * ```
 */
export class PlatformKeySourceError extends Data.TaggedError("PlatformKeySourceError")<{
  readonly message: string
  readonly cause: unknown
}> {}

/**
 * A platform key source, made by {@link make} or {@link mock}; give it to a verifier as
 * `platformKeySource`, beside or instead of static `platformKeys`.
 *
 * @example
 * ```ts
 * import { PlatformKeySource } from "@pc/client"
 * import { NodeCrypto } from "@pc/crypto-node"
 * import { Effect } from "effect"
 *
 * const source = PlatformKeySource.make(fetchKey, { crypto: NodeCrypto })
 * const verifier = await Effect.runPromise(source.lookup("production", 2))
 * ```
 */
export interface PlatformKeySource {
  /**
   * The verifier of that key: cached once imported; `undefined` when the source has no such key,
   * remembered for `refreshInterval` so that unknown versions cost at most one lookup each per interval.
   *
   * Fails with {@link PlatformKeySourceError} when the lookup or the import fails.
   */
  readonly lookup: (
    environment: Environment.Environment,
    version: number
  ) => Effect.Effect<Crypto.Verifier | undefined, PlatformKeySourceError>
}

/**
 * The options of {@link make}.
 *
 * @example
 * ```ts
 * import type { PlatformKeySource } from "@pc/client"
 * import { WebCrypto } from "@pc/crypto-web"
 *
 * const options: PlatformKeySource.Options = { crypto: WebCrypto, refreshInterval: "1 minute" }
 * ```
 */
export interface Options {
  /** Imports the PEM keys: `NodeCrypto` or `WebCrypto`. */
  readonly crypto: Crypto.CryptoProvider
  /** How long an unknown version is remembered as unknown before it is looked up again; default 10 s. */
  readonly refreshInterval?: Duration.DurationInput | undefined
}

/**
 * Makes a platform key source from a lookup function. Each key is imported once and kept; a
 * version the function does not know is looked up again at most once per `refreshInterval`, and
 * concurrent callbacks with the same new version share one lookup.
 *
 * @example
 * ```ts
 * import { PlatformKeySource } from "@pc/client"
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const platformKeySource = PlatformKeySource.make(
 *   async (environment, version) => (await secrets.get(`pc/${environment}/platform-key/v${version}`)) ?? undefined,
 *   { crypto: NodeCrypto }
 * )
 * ```
 */
export const make = (fetchKey: FetchPlatformKey, options: Options): PlatformKeySource => {
  const refreshMs = Duration.toMillis(Duration.decode(options.refreshInterval ?? "10 seconds"))
  const known = new Map<string, Crypto.Verifier>()
  const unknownUntil = new Map<string, number>()
  const inFlight = new Map<string, Promise<Crypto.Verifier | undefined>>()

  const load = async (environment: Environment.Environment, version: number, key: string) => {
    const pem = await fetchKey(environment, version)
    if (pem === undefined) {
      unknownUntil.set(key, Date.now() + refreshMs)
      return undefined
    }
    const verifier = await options.crypto.importPublicKey(pem)
    known.set(key, verifier)
    unknownUntil.delete(key)
    return verifier
  }

  return {
    lookup: (environment, version) =>
      Effect.suspend(() => {
        const key = `${environment}:${version}`
        const cached = known.get(key)
        if (cached !== undefined) return Effect.succeed(cached)
        if ((unknownUntil.get(key) ?? 0) > Date.now()) return Effect.succeed(undefined)
        return Effect.tryPromise({
          try: () => {
            let pending = inFlight.get(key)
            if (pending === undefined) {
              pending = load(environment, version, key).finally(() => inFlight.delete(key))
              inFlight.set(key, pending)
            }
            return pending
          },
          catch: (cause) =>
            new PlatformKeySourceError({
              message: `the platform key source failed for ${environment} version ${version}: ${
                cause instanceof Error ? cause.message : String(cause)
              }`,
              cause
            })
        })
      })
  }
}

/**
 * The lookup function for a mock server's `GET /dev/platform-keys`: the key of that version unless
 * it is `retired`. The mock serves its own environment only.
 *
 * @example
 * ```ts
 * import { PlatformKeySource } from "@pc/client"
 *
 * const fetchKey = PlatformKeySource.fetchFromMock("http://127.0.0.1:4010")
 * ```
 */
export const fetchFromMock =
  (
    baseUrl: string,
    options: { readonly devToken?: string | undefined; readonly fetch?: typeof globalThis.fetch | undefined } = {}
  ): FetchPlatformKey =>
  async (environment, version) => {
    const response = await (options.fetch ?? globalThis.fetch)(new URL("/dev/platform-keys", baseUrl), {
      headers: options.devToken === undefined ? {} : { authorization: `Bearer ${options.devToken}` }
    })
    if (!response.ok) throw new Error(`GET /dev/platform-keys answered HTTP ${response.status}`)
    const envelope = (await response.json()) as {
      readonly data: ReadonlyArray<{
        readonly environment: string
        readonly version: number
        readonly publicKeyPem: string
        readonly status: string
      }> | null
    }
    const key = envelope.data?.find(
      (k) => k.environment === environment && k.version === version && k.status !== "retired"
    )
    return key?.publicKeyPem
  }

/**
 * A ready source for a mock server: {@link make} over {@link fetchFromMock}.
 *
 * @example
 * ```ts
 * import { Callback, PlatformKeySource } from "@pc/client"
 * import { NodeCrypto } from "@pc/crypto-node"
 *
 * const verifier = Callback.make({
 *   environment: "sandbox",
 *   appKey,
 *   platformKeySource: PlatformKeySource.mock("http://127.0.0.1:4010", { crypto: NodeCrypto })
 * })
 * ```
 */
export const mock = (
  baseUrl: string,
  options: Options & { readonly devToken?: string | undefined; readonly fetch?: typeof globalThis.fetch | undefined }
): PlatformKeySource => make(fetchFromMock(baseUrl, options), options)
