import { describe, expect, it } from "@effect/vitest"
import { KeyRing } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { Effect, Layer, TestClock } from "effect"
import fc from "fast-check"
import * as Callback from "../src/Callback.js"
import * as ReplayGuard from "../src/ReplayGuard.js"
import { eventBody, platformKeys, signCallback } from "./support/callbacks.js"
import { APP_KEY, OTHER_APP_KEY, keyOf } from "./support/vectors.js"

const keys = await platformKeys
const productionOnly: Callback.PlatformKeyRing = { production: keys.production }

const verifierFor = (options: Partial<Callback.VerifierOptions> = {}) =>
  Callback.make({ environment: "production", appKey: APP_KEY, platformKeys: keys, ...options })

const expectReason = (error: Callback.CallbackVerificationError, reason: Callback.CallbackVerificationErrorReason) => {
  expect(error.reason, error.message).toBe(reason)
  return error
}

const signedNow = (
  body: string,
  key = "platform-production-v1",
  extra: { keyVersion?: number; appKey?: string } = {}
) => Effect.promise(() => signCallback({ key, timestamp: Date.now(), body, ...extra }))

describe("verify", () => {
  it.live("a production callback signed with the production platform key decodes to the event", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const event = yield* verifier.verify({ headers: yield* signedNow(body), body })
      expect(event.eventType).toBe("order.paid")
      expect(event.outerOrder).toBe("M-1001")
      expect(event.status).toBe("PAID")
    })
  )

  it.live("a sandbox callback verifies with the sandbox key in a sandbox verifier", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ environment: "sandbox" })
      const body = eventBody({ eventType: "order.failed", status: "FAILED" })
      const event = yield* verifier.verify({ headers: yield* signedNow(body, "platform-sandbox-v1"), body })
      expect(event.eventType).toBe("order.failed")
    })
  )

  it.live("a body re-serialised with JSON.stringify(JSON.parse(body), null, 1) is refused, naming the raw body", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const headers = yield* signedNow(body)
      const reformatted = JSON.stringify(JSON.parse(body), null, 1)
      const error = expectReason(yield* Effect.flip(verifier.verify({ headers, body: reformatted })), "BadSignature")
      expect(error.message).toMatch(/did you pass the raw body\?/i)
      expect(error.message).toMatch(/re-serialised the JSON changes the bytes/)
      expect(error.keyVersion).toBe(1)
    })
  )

  it.live("a body with its keys reordered is refused", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const headers = yield* signedNow(body)
      const parsed = JSON.parse(body) as Record<string, string>
      const reordered = JSON.stringify(Object.fromEntries(Object.entries(parsed).reverse()))
      expectReason(yield* Effect.flip(verifier.verify({ headers, body: reordered })), "BadSignature")
    })
  )

  it.live("the sandbox key is refused in production: WrongEnvironment when the ring knows it, else BadSignature", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "platform-sandbox-v1")
      const both = yield* verifierFor()
      const error = expectReason(yield* Effect.flip(both.verify({ headers, body })), "WrongEnvironment")
      expect(error.message).toContain("sandbox platform key")
      const only = yield* verifierFor({ platformKeys: productionOnly })
      expectReason(yield* Effect.flip(only.verify({ headers, body })), "BadSignature")
    })
  )

  it.live("the production key is refused in sandbox", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "platform-production-v1")
      const verifier = yield* verifierFor({ environment: "sandbox" })
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "WrongEnvironment")
    })
  )

  it.live("the merchant's own key never verifies a callback", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "merchant-v1")
      const verifier = yield* verifierFor()
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "BadSignature")
    })
  )

  it.live("an unknown key version is refused with UnknownKeyVersion, listing the known ones", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "platform-production-v1", { keyVersion: 2 })
      const verifier = yield* verifierFor()
      const error = expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "UnknownKeyVersion")
      expect(error.keyVersion).toBe(2)
      expect(error.message).toContain("known: 1")
    })
  )

  it.live("a ring with two versions verifies both during a rotation (no downtime)", () =>
    Effect.gen(function* () {
      // merchant-v2's key stands in for a newly published production platform key, version 2.
      const rotated = yield* Effect.promise(() =>
        KeyRing.importVerifiers(NodeCrypto, {
          1: keyOf("platform-production-v1").publicSpkiPem,
          2: keyOf("merchant-v2").publicSpkiPem
        })
      )
      const verifier = yield* verifierFor({ platformKeys: { production: rotated } })
      const body = eventBody()
      const old = yield* signedNow(body, "platform-production-v1", { keyVersion: 1 })
      const next = yield* signedNow(eventBody({ eventId: "evt_02" }), "merchant-v2", { keyVersion: 2 })
      expect((yield* verifier.verify({ headers: old, body })).eventId).toBe("evt_01")
      expect((yield* verifier.verify({ headers: next, body: eventBody({ eventId: "evt_02" }) })).eventId).toBe("evt_02")
      // The version header selects the key: v1's signature under version 2 fails.
      const mixed = { ...old, "X-R-Key-Version": "2" }
      expectReason(yield* Effect.flip(verifier.verify({ headers: mixed, body })), "BadSignature")
    })
  )

  it.live("a callback signed for another appKey is refused (the appKey is your own)", () =>
    Effect.gen(function* () {
      const body = eventBody()
      const headers = yield* signedNow(body, "platform-production-v1", { appKey: OTHER_APP_KEY })
      const verifier = yield* verifierFor()
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "BadSignature")
    })
  )

  it.live("missing and malformed headers have their own reasons", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ replayGuard: false })
      const body = eventBody()
      const headers = yield* signedNow(body)
      const { "X-R-Ts": _ts, ...noTimestamp } = headers
      const missing = expectReason(yield* Effect.flip(verifier.verify({ headers: noTimestamp, body })), "MissingHeader")
      expect(missing.header).toBe("X-R-Ts")
      const urlEncoded = { ...headers, "X-R-Signature": encodeURIComponent(headers["X-R-Signature"]) }
      const malformed = expectReason(
        yield* Effect.flip(verifier.verify({ headers: urlEncoded, body })),
        "MalformedHeader"
      )
      expect(malformed.message).toMatch(/URL-encoded/)
      expectReason(
        yield* Effect.flip(verifier.verify({ headers: { ...headers, "X-R-Key-Version": "v1" }, body })),
        "MalformedHeader"
      )
    })
  )

  it.live("a correctly signed body that is not an event is MalformedBody", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = '{"orderSn":"PC1","status":"PAID"}'
      const error = expectReason(
        yield* Effect.flip(verifier.verify({ headers: yield* signedNow(body), body })),
        "MalformedBody"
      )
      expect(error.message).toContain("eventId")
    })
  )
})

describe("the +-5 minute window (TestClock)", () => {
  const timestamp = 1_763_712_005_000

  it.effect("X-R-Ts exactly 5 minutes old is accepted; 5 minutes and 1 ms is StaleTimestamp", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ replayGuard: false })
      const body = eventBody()
      const headers = yield* Effect.promise(() => signCallback({ key: "platform-production-v1", timestamp, body }))
      yield* TestClock.setTime(timestamp + 5 * 60 * 1000)
      yield* verifier.verify({ headers, body })
      yield* TestClock.adjust(1)
      const error = expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "StaleTimestamp")
      expect(error.localClockAheadMs).toBe(5 * 60 * 1000 + 1)
      expect(error.message).toMatch(/300 s behind this machine's clock/)
    })
  )

  it.effect("X-R-Ts 6 minutes in the future is StaleTimestamp too", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      const headers = yield* Effect.promise(() => signCallback({ key: "platform-production-v1", timestamp, body }))
      yield* TestClock.setTime(timestamp - 6 * 60 * 1000)
      const error = expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "StaleTimestamp")
      expect(error.message).toMatch(/ahead of this machine's clock/)
      expect(error.localClockAheadMs).toBe(-6 * 60 * 1000)
    })
  )
})

describe("replay guard", () => {
  it.effect("the default in-memory guard refuses the same delivery twice; a fresh re-signed delivery passes", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor()
      const body = eventBody()
      // A fixed instant on the test clock: the re-signed delivery is 2 ms later without waiting.
      const timestamp = 1_763_712_005_000
      yield* TestClock.setTime(timestamp)
      const sign = (at: number) =>
        Effect.promise(() => signCallback({ key: "platform-production-v1", timestamp: at, body }))
      const headers = yield* sign(timestamp)
      yield* verifier.verify({ headers, body })
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "Replayed")
      // The service signs each redelivery afresh (new X-R-Ts): a genuine redelivery is not a replay.
      yield* TestClock.adjust("2 millis")
      yield* verifier.verify({ headers: yield* sign(timestamp + 2), body })
    })
  )

  it.live("a custom async guard gets the delivery's entry; its failure refuses the callback", () =>
    Effect.gen(function* () {
      const entries: Array<ReplayGuard.ReplayEntry> = []
      const custom: ReplayGuard.ReplayGuard = {
        seenBefore: async (entry) => {
          entries.push(entry)
          return entries.filter((e) => e.key === entry.key).length > 1
        }
      }
      const verifier = yield* verifierFor({ replayGuard: custom })
      const body = eventBody()
      const headers = yield* signedNow(body)
      yield* verifier.verify({ headers, body })
      expect(entries[0]).toMatchObject({
        key: `${APP_KEY}:production:${headers["X-R-Ts"]}:evt_01`,
        appKey: APP_KEY,
        environment: "production",
        keyVersion: 1,
        timestamp: Number(headers["X-R-Ts"]),
        eventId: "evt_01",
        expiresAt: Number(headers["X-R-Ts"]) + 5 * 60 * 1000
      })
      // The key is short: the delivery is verified, so the signature need not be part of it.
      expect(entries[0]!.key.length).toBeLessThan(100)
      expectReason(yield* Effect.flip(verifier.verify({ headers, body })), "Replayed")

      const failing = yield* verifierFor({
        replayGuard: { seenBefore: () => Promise.reject(new Error("redis down")) }
      })
      const error = expectReason(yield* Effect.flip(failing.verify({ headers, body })), "ReplayGuardFailed")
      expect(error.message).toContain("redis down")
    })
  )

  it.live("a full in-memory guard refuses new deliveries (ReplayGuardFailed) and still knows the old ones", () =>
    Effect.gen(function* () {
      const verifier = yield* verifierFor({ replayGuard: ReplayGuard.memory({ maxEntries: 1 }) })
      const first = eventBody()
      const firstHeaders = yield* signedNow(first)
      yield* verifier.verify({ headers: firstHeaders, body: first })
      const second = eventBody({ eventId: "evt_02" })
      const full = expectReason(
        yield* Effect.flip(verifier.verify({ headers: yield* signedNow(second), body: second })),
        "ReplayGuardFailed"
      )
      expect(full.message).toMatch(/replay guard is full/)
      expect(full.message).toMatch(/delivers again later/)
      expectReason(yield* Effect.flip(verifier.verify({ headers: firstHeaders, body: first })), "Replayed")
    })
  )

  it.effect("Callback.layer built per request still shares its default guard", () =>
    Effect.gen(function* () {
      const live = Layer.orDie(Callback.layer({ environment: "production", appKey: APP_KEY, platformKeys: keys }))
      const body = eventBody()
      const headers = yield* Effect.promise(() =>
        signCallback({ key: "platform-production-v1", timestamp: 1_763_712_005_000, body })
      )
      yield* TestClock.setTime(1_763_712_005_000)
      yield* Callback.verify({ headers, body }).pipe(Effect.provide(live))
      const again = yield* Effect.flip(Callback.verify({ headers, body }).pipe(Effect.provide(live)))
      expectReason(again, "Replayed")
      // Two layer values are two verifiers, each with its own guard.
      const other = Layer.orDie(Callback.layer({ environment: "production", appKey: APP_KEY, platformKeys: keys }))
      yield* Callback.verify({ headers, body }).pipe(Effect.provide(other))
    })
  )

  it.live("an Effect guard works too; a forged callback never reaches the guard", () =>
    Effect.gen(function* () {
      let calls = 0
      const verifier = yield* verifierFor({
        replayGuard: { seenBefore: () => Effect.sync(() => ++calls > 1) }
      })
      const body = eventBody()
      const headers = yield* signedNow(body)
      yield* Effect.flip(verifier.verify({ headers, body: body.replace("10.00", "99.00") }))
      expect(calls).toBe(0)
      yield* verifier.verify({ headers, body })
      expect(calls).toBe(1)
    })
  )
})

describe("properties (fast-check)", () => {
  const randomCase = (name: string) =>
    fc
      .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
      .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""))

  it("any casing of X-R-Ts / X-R-Key-Version / X-R-Signature, body as string or bytes, in a record or Headers: verifies", async () => {
    const verifier = await Effect.runPromise(verifierFor({ replayGuard: false }))
    const body = eventBody()
    const signed = await signCallback({ key: "platform-production-v1", timestamp: Date.now(), body })
    await fc.assert(
      fc.asyncProperty(
        randomCase("X-R-Ts"),
        randomCase("X-R-Key-Version"),
        randomCase("X-R-Signature"),
        fc.boolean(),
        fc.boolean(),
        async (ts, kv, sig, asBytes, asFetchHeaders) => {
          const record = { [ts]: signed["X-R-Ts"], [kv]: signed["X-R-Key-Version"], [sig]: signed["X-R-Signature"] }
          const event = await Effect.runPromise(
            verifier.verify({
              headers: asFetchHeaders ? new Headers(record) : record,
              body: asBytes ? new TextEncoder().encode(body) : body
            })
          )
          expect(event.eventId).toBe("evt_01")
        }
      ),
      { numRuns: 100 }
    )
  })

  it("any single byte flipped in the body fails with BadSignature", async () => {
    const verifier = await Effect.runPromise(verifierFor({ replayGuard: false }))
    const body = eventBody({ outerOrder: "订单-ü-1003" })
    const bytes = new TextEncoder().encode(body)
    const headers = await signCallback({ key: "platform-production-v1", timestamp: Date.now(), body: bytes })
    expect((await Effect.runPromise(verifier.verify({ headers, body: bytes }))).outerOrder).toBe("订单-ü-1003")
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), async (index, mask) => {
        const flipped = bytes.slice()
        flipped[index] = flipped[index]! ^ mask
        const error = await Effect.runPromise(Effect.flip(verifier.verify({ headers, body: flipped })))
        expect(error.reason).toBe("BadSignature")
      }),
      { numRuns: 200 }
    )
  })
})

describe("make and importPlatformKeys", () => {
  it.effect("no platform keys for the environment is a ConfigurationError", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(verifierFor({ environment: "gray" }))
      expect(error.reason).toBe("UnknownKeyVersion")
      expect(error.message).toContain("platformKeys.gray")
    })
  )

  it.effect("an appKey that is not a UUID is refused", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(verifierFor({ appKey: "merchant" }))
      expect(error.option).toBe("appKey")
    })
  )

  it.effect("importPlatformKeys imports PEM by environment and refuses weak keys", () =>
    Effect.gen(function* () {
      const ring = yield* Callback.importPlatformKeys(NodeCrypto, {
        production: { 1: keyOf("platform-production-v1").publicSpkiPem, 2: keyOf("platform-sandbox-v1").publicPkcs1Pem }
      })
      expect(ring.production?.versions).toEqual([1, 2])
      expect(ring.sandbox).toBeUndefined()
      const weak = yield* Effect.flip(
        Callback.importPlatformKeys(NodeCrypto, { sandbox: { 1: keyOf("weak-1024").publicSpkiPem } })
      )
      expect(weak.reason).toBe("WeakKey")
    })
  )
})
