/**
 * The environment's platform keys: generated on first start and persisted; rotation publishes a
 * new version that signs every callback from then on, while the old one stays published (spec 5.5).
 */
import type { Crypto } from "@pc/core"
import { KeyPair } from "@pc/crypto-node"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { MockConfig } from "../config/Config.js"
import { Store } from "../store/Store.js"
import { platformSigner } from "./CallbackSigner.js"
import type { PlatformKey } from "../store/Records.js"

/** A platform key as the developer menu publishes it: never the private key. */
export interface PublishedPlatformKey {
  readonly environment: string
  readonly version: number
  readonly publicKeyPem: string
  readonly status: PlatformKey["status"]
}

/** The key that signs callbacks now, with its version for `X-R-Key-Version`. */
export interface CurrentPlatformKey {
  readonly version: number
  readonly signer: Crypto.Signer
}

/** What the environment's platform keys offer the mock (the dispatcher, the developer menu). */
export interface PlatformKeysShape {
  /**
   * Starts making (or importing) the current key in the background, for the mock to call once it
   * listens; what needs the key waits for the same work, started then or on first need.
   */
  readonly prepare: Effect.Effect<void>
  /**
   * The key that signs callbacks now. On a shared database another replica may have rotated it:
   * there it is read from the database each time (its signer imported once per version).
   */
  readonly current: Effect.Effect<CurrentPlatformKey>
  /** Every platform key of this environment, public parts only. */
  readonly list: Effect.Effect<ReadonlyArray<PublishedPlatformKey>, SqlError>
  /**
   * Adds a new key and returns it: current at once (the previous one stays published), or with
   * `publishOnly` only published, so merchants can add it before it signs.
   */
  readonly rotate: (options?: { readonly publishOnly?: boolean }) => Effect.Effect<PublishedPlatformKey, SqlError>
  /** Makes a published key current; `undefined` when no published key has that version. */
  readonly activate: (version: number) => Effect.Effect<PublishedPlatformKey | undefined, SqlError>
  /** Retires a published, not current key; `undefined` when no published key has that version. */
  readonly retire: (version: number) => Effect.Effect<PublishedPlatformKey | undefined, SqlError>
}

export const make: Effect.Effect<PlatformKeysShape, SqlError, MockConfig | Store | Scope.Scope> = Effect.gen(
  function* () {
    const config = yield* MockConfig
    const store = yield* Store
    const lock = yield* Effect.makeSemaphore(1)

    const generate = (publishOnly: boolean) =>
      Effect.gen(function* () {
        const pair = yield* Effect.promise(() => KeyPair.generate(2048))
        const nowMs = yield* Clock.currentTimeMillis
        const draft = { privateKeyPem: pair.privateKeyPem, publicKeyPem: pair.publicKeyPem, nowMs }
        return yield* store.addPlatformKey(draft, { publishOnly })
      })

    // Parsed once per key version; signing then runs off the event loop (CallbackSigner.ts).
    const load = (key: PlatformKey) =>
      Effect.promise(
        async (): Promise<CurrentPlatformKey> => ({
          version: key.version,
          signer: await platformSigner(key.privateKeyPem)
        })
      )

    // A new environment's first key pair (RSA 2048) keeps a thread-pool thread busy for a while: it is
    // made in the background once the mock listens (`prepare`), or on first need, and whatever signs
    // or lists keys waits for it (`ready`), so that the start itself does not compete with it for a
    // core. On a known environment this is only the import of the stored key.
    const existing = (yield* store.platformKeys).find((key) => key.status === "current")
    const ready = yield* Effect.cached(
      Effect.flatMap(
        existing !== undefined
          ? Effect.succeed(existing)
          : Effect.gen(function* () {
              const pair = yield* Effect.promise(() => KeyPair.generate(2048))
              return yield* store.currentPlatformKey({ ...pair, nowMs: yield* Clock.currentTimeMillis })
            }),
        load
      ).pipe(Effect.orDie)
    )
    const scope = yield* Effect.scope
    const rotated = yield* Ref.make(Option.none<CurrentPlatformKey>())
    const signers = new Map<number, CurrentPlatformKey>()

    const publish = (key: PlatformKey): PublishedPlatformKey => ({
      environment: config.environment,
      version: key.version,
      publicKeyPem: key.publicKeyPem,
      status: key.status
    })

    return {
      prepare: Effect.asVoid(Effect.forkIn(ready, scope)),
      current: store.shared
        ? Effect.flatMap(Effect.zipRight(ready, Effect.orDie(store.platformKeys)), (keys) => {
            const key = keys.find((k) => k.status === "current")!
            const cached = signers.get(key.version)
            if (cached !== undefined) return Effect.succeed(cached)
            return Effect.tap(load(key), (loaded) => Effect.sync(() => signers.set(key.version, loaded)))
          })
        : Effect.flatMap(Ref.get(rotated), Option.match({ onNone: () => ready, onSome: Effect.succeed })),
      list: Effect.zipRight(
        ready,
        Effect.map(store.platformKeys, (keys) => keys.map(publish))
      ),
      rotate: (options) =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            yield* ready
            const publishOnly = options?.publishOnly === true
            const key = yield* generate(publishOnly)
            if (!publishOnly) yield* Ref.set(rotated, Option.some(yield* load(key)))
            yield* Effect.logInfo(publishOnly ? "platform key published" : "platform key rotated").pipe(
              Effect.annotateLogs({ version: key.version })
            )
            return publish(key)
          })
        ),
      activate: (version) =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            yield* ready
            const key = yield* store.activatePlatformKey(version)
            if (key === undefined) return undefined
            yield* Ref.set(rotated, Option.some(yield* load(key)))
            yield* Effect.logInfo("platform key activated").pipe(Effect.annotateLogs({ version }))
            return publish(key)
          })
        ),
      retire: (version) =>
        lock.withPermits(1)(
          Effect.zipRight(
            ready,
            Effect.map(store.retirePlatformKey(version), (key) => (key === undefined ? undefined : publish(key)))
          )
        )
    }
  }
)

/** The environment's platform keys, on the store in context. */
export class PlatformKeys extends Context.Tag("@pc/mock-server/PlatformKeys")<PlatformKeys, PlatformKeysShape>() {
  /**
   * The service, made from what the caller's context holds (in its scope: what it starts stops with it):
   * main/Server.ts makes the mock's services one after another in one layer.
   *
   * @example
   * ```ts
   * const platformKeys = yield* Effect.provide(PlatformKeys.make, context)
   * ```
   */
  static readonly make = make
  static readonly layer = Layer.scoped(PlatformKeys, make)
}
