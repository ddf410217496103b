/**
 * The environment's platform keys: generated on first start and persisted; rotation publishes a
 * new version that signs every callback from then on, while the old one stays published (spec 5.5).
 */
import type { Crypto } from "@pc/core"
import { KeyPair } from "@pc/crypto-node"
import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import { MockConfig } from "../Config.js"
import type { PlatformKey } from "../store/PlatformKeyStore.js"
import { Store } from "../store/Store.js"
import { platformSigner } from "./CallbackSigner.js"

/** A platform key as the developer menu publishes it: never the private key. */
export interface PublishedPlatformKey {
  readonly environment: string
  readonly version: number
  readonly publicKeyPem: string
  readonly status: PlatformKey["status"]
}

export interface CurrentPlatformKey {
  readonly version: number
  readonly signer: Crypto.Signer
}

export const make = Effect.gen(function* () {
  const config = yield* MockConfig
  const store = yield* Store
  const lock = yield* Effect.makeSemaphore(1)

  const generate = Effect.gen(function* () {
    const pair = yield* Effect.promise(() => KeyPair.generate(2048))
    const nowMs = yield* Clock.currentTimeMillis
    return yield* store.addPlatformKey({ privateKeyPem: pair.privateKeyPem, publicKeyPem: pair.publicKeyPem, nowMs })
  })

  // Parsed once per key version; signing then runs off the event loop (CallbackSigner.ts).
  const load = (key: PlatformKey) =>
    Effect.sync((): CurrentPlatformKey => ({ version: key.version, signer: platformSigner(key.privateKeyPem) }))

  // A new environment's first key pair (RSA 2048) keeps a thread-pool thread busy for 50-500 ms: it is
  // made in the background from here, so the mock listens meanwhile, and whatever signs or lists
  // keys waits for it (`ready`). On a known environment this is only the import of the stored key.
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
  yield* Effect.forkScoped(ready)
  const rotated = yield* Ref.make(Option.none<CurrentPlatformKey>())
  const signers = new Map<number, CurrentPlatformKey>()

  const publish = (key: PlatformKey): PublishedPlatformKey => ({
    environment: config.environment,
    version: key.version,
    publicKeyPem: key.publicKeyPem,
    status: key.status
  })

  return {
    /**
     * The key that signs callbacks now. On a shared database another replica may have rotated it:
     * there it is read from the database each time (its signer imported once per version).
     */
    current: store.shared
      ? Effect.flatMap(Effect.zipRight(ready, Effect.orDie(store.platformKeys)), (keys) => {
          const key = keys.find((k) => k.status === "current")!
          const cached = signers.get(key.version)
          if (cached !== undefined) return Effect.succeed(cached)
          return Effect.tap(load(key), (loaded) => Effect.sync(() => signers.set(key.version, loaded)))
        })
      : Effect.flatMap(Ref.get(rotated), Option.match({ onNone: () => ready, onSome: Effect.succeed })),
    /** Every platform key of this environment, public parts only. */
    list: Effect.zipRight(
      ready,
      Effect.map(store.platformKeys, (keys) => keys.map(publish))
    ),
    /** Makes a new key current; the previous one stays published. */
    rotate: lock.withPermits(1)(
      Effect.gen(function* () {
        yield* ready
        const key = yield* generate
        yield* Ref.set(rotated, Option.some(yield* load(key)))
        yield* Effect.logInfo("platform key rotated").pipe(Effect.annotateLogs({ version: key.version }))
        return publish(key)
      })
    )
  }
})

export class PlatformKeys extends Context.Tag("mock-server/PlatformKeys")<
  PlatformKeys,
  Effect.Effect.Success<typeof make>
>() {
  static readonly layer = Layer.scoped(PlatformKeys, make)
}
