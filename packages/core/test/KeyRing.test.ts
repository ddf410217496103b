import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { CryptoProvider, Message, Signer, Verifier } from "../src/Crypto.js"
import {
  add,
  importSigners,
  importVerifiers,
  type KeyRing,
  KeyRingError,
  make,
  remove,
  withCurrent
} from "../src/KeyRing.js"

const errorOf = (f: () => unknown): KeyRingError => {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(KeyRingError)
    return e as KeyRingError
  }
  throw new Error("expected a KeyRingError")
}

const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error("expected a rejection")
    },
    (e: unknown) => e
  )

/** What a ring holds, as plain data. */
const contents = <K>(ring: KeyRing<K>) => ({
  current: ring.current,
  currentKey: ring.currentKey,
  versions: [...ring.versions],
  keys: ring.versions.map((v) => ring.get(v))
})

describe("make", () => {
  it("makes a ring from a Map", () => {
    const ring = make(
      new Map([
        [1, "one"],
        [2, "two"]
      ]),
      1
    )
    expect(contents(ring)).toEqual({ current: 1, currentKey: "one", versions: [1, 2], keys: ["one", "two"] })
  })

  it("makes a ring from a record keyed by version", () => {
    const ring = make({ 1: "one", 3: "three" }, 3)
    expect(ring.current).toBe(3)
    expect(ring.currentKey).toBe("three")
    expect(ring.get(1)).toBe("one")
    expect(ring.get(3)).toBe("three")
  })

  it("makes a ring from [version, key] pairs", () => {
    const ring = make([
      [2, "two"],
      [1, "one"]
    ])
    expect(ring.get(1)).toBe("one")
    expect(ring.get(2)).toBe("two")
  })

  it("lists the versions in ascending order whatever the input order", () => {
    expect(
      make([
        [10, "ten"],
        [2, "two"],
        [7, "seven"]
      ]).versions
    ).toEqual([2, 7, 10])
    expect(make({ 10: "ten", 9: "nine", 1: "one" }).versions).toEqual([1, 9, 10])
  })

  it("defaults current to the highest version (numerically, not as text)", () => {
    const ring = make([
      [10, "ten"],
      [9, "nine"],
      [2, "two"]
    ])
    expect(ring.current).toBe(10)
    expect(ring.currentKey).toBe("ten")
    expect(make({ 1: "a", 2: "b" }).currentKey).toBe("b")
    expect(make(new Map([[5, "five"]])).current).toBe(5)
  })

  it("gives undefined for a version it does not hold", () => {
    const ring = make({ 1: "one" })
    expect(ring.get(2)).toBeUndefined()
    expect(ring.get(0)).toBeUndefined()
  })

  it("keeps keys of any type, including falsy ones", () => {
    const ring = make<number>([
      [1, 0],
      [2, 5]
    ])
    expect(ring.get(1)).toBe(0)
    expect(withCurrent(ring, 1).currentKey).toBe(0)
  })

  it("does not change when the input Map changes afterwards", () => {
    const input = new Map([[1, "one"]])
    const ring = make(input)
    input.set(2, "two")
    input.set(1, "changed")
    expect(contents(ring)).toEqual({ current: 1, currentKey: "one", versions: [1], keys: ["one"] })
  })

  it("property: holds every entry given, with current the highest", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 20 }),
        (versions) => {
          const ring = make(versions.map((v) => [v, `key-${v}`] as const))
          expect(ring.versions).toEqual([...versions].sort((a, b) => a - b))
          expect(ring.current).toBe(Math.max(...versions))
          for (const v of versions) expect(ring.get(v)).toBe(`key-${v}`)
        }
      )
    )
  })
})

describe("make: errors", () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])("refuses version %d as InvalidVersion", (v) => {
    const e = errorOf(() => make([[v, "key"]]))
    expect(e.reason).toBe("InvalidVersion")
    expect(e._tag).toBe("KeyRingError")
    expect(e.code).toBe("ERR_PC_KEY_RING")
    expect(e.name).toBe("KeyRingError")
  })

  it("refuses an invalid version in a Map even beside valid ones", () => {
    expect(
      errorOf(() =>
        make(
          new Map([
            [1, "a"],
            [0, "b"]
          ])
        )
      ).reason
    ).toBe("InvalidVersion")
  })

  it.each(["01", "0", "-1", "1.5", "1e3", " 1", "v1", "abc"])("refuses the record key %j as InvalidVersion", (key) => {
    const e = errorOf(() => make({ [key]: "key" } as Record<number, string>))
    expect(e.reason).toBe("InvalidVersion")
    expect(e.message).toContain(key)
  })

  it("refuses an empty Map, record or list as Empty", () => {
    expect(errorOf(() => make(new Map<number, string>())).reason).toBe("Empty")
    expect(errorOf(() => make<string>({})).reason).toBe("Empty")
    expect(errorOf(() => make<string>([])).reason).toBe("Empty")
  })

  it("refuses a current version the ring does not hold as UnknownCurrentVersion, naming what it holds", () => {
    const e = errorOf(() => make({ 1: "one", 2: "two" }, 3))
    expect(e.reason).toBe("UnknownCurrentVersion")
    expect(e.message).toContain("3")
    expect(e.message).toContain("1, 2")
    expect(errorOf(() => make({ 1: "one" }, 0)).reason).toBe("UnknownCurrentVersion")
  })
})

describe("add, withCurrent, remove", () => {
  const base = () => make({ 1: "one" })

  it("add returns a new ring with the key, the current version unchanged, and leaves the old ring as it was", () => {
    const before = base()
    const snapshot = contents(before)
    const after = add(before, 2, "two")
    expect(after).not.toBe(before)
    expect(contents(after)).toEqual({ current: 1, currentKey: "one", versions: [1, 2], keys: ["one", "two"] })
    expect(contents(before)).toEqual(snapshot)
    expect(before.get(2)).toBeUndefined()
  })

  it("add replaces the key of a version the ring already holds, in the new ring only", () => {
    const before = make({ 1: "one", 2: "two" })
    const after = add(before, 1, "uno")
    expect(after.get(1)).toBe("uno")
    expect(after.currentKey).toBe("two")
    expect(after.versions).toEqual([1, 2])
    expect(before.get(1)).toBe("one")
  })

  it("add replacing the current key changes currentKey", () => {
    expect(add(make({ 1: "one" }), 1, "uno").currentKey).toBe("uno")
  })

  it("add refuses an invalid version", () => {
    expect(errorOf(() => add(base(), 0, "zero")).reason).toBe("InvalidVersion")
    expect(errorOf(() => add(base(), 2.5, "x")).reason).toBe("InvalidVersion")
  })

  it("withCurrent returns a new ring that signs with the version, leaving the old one unchanged", () => {
    const before = make({ 1: "one", 2: "two" }, 1)
    const after = withCurrent(before, 2)
    expect(after.current).toBe(2)
    expect(after.currentKey).toBe("two")
    expect(before.current).toBe(1)
    expect(before.currentKey).toBe("one")
  })

  it("withCurrent refuses a version the ring does not hold", () => {
    expect(errorOf(() => withCurrent(base(), 2)).reason).toBe("UnknownCurrentVersion")
  })

  it("remove returns a new ring without the version, leaving the old one unchanged", () => {
    const before = make({ 1: "one", 2: "two" }, 2)
    const after = remove(before, 1)
    expect(contents(after)).toEqual({ current: 2, currentKey: "two", versions: [2], keys: ["two"] })
    expect(after.get(1)).toBeUndefined()
    expect(before.get(1)).toBe("one")
    expect(before.versions).toEqual([1, 2])
  })

  it("remove of a version the ring does not hold gives an equal ring", () => {
    const before = make({ 1: "one", 2: "two" })
    expect(contents(remove(before, 5))).toEqual(contents(before))
  })

  it("remove of the current version throws, and the ring keeps it", () => {
    const ring = make({ 1: "one", 2: "two" }, 2)
    expect(errorOf(() => remove(ring, 2)).reason).toBe("UnknownCurrentVersion")
    expect(ring.get(2)).toBe("two")
    expect(ring.current).toBe(2)
  })

  it("remove of the last key throws", () => {
    expect(() => remove(base(), 1)).toThrow(KeyRingError)
  })
})

describe("rotation (spec 5.6): upload the new key, switch, later drop the old one", () => {
  it("moves from v1 to v2 with the old ring untouched at every step", () => {
    const v1 = make({ 1: "key-v1" })
    expect(v1.current).toBe(1)

    // 1. add v2: still signing with v1, both verify.
    const added = add(v1, 2, "key-v2")
    expect(added.current).toBe(1)
    expect(added.currentKey).toBe("key-v1")
    expect(added.get(2)).toBe("key-v2")
    // Removing v2 here is allowed, removing v1 is not (it still signs).
    expect(() => remove(added, 1)).toThrow(KeyRingError)

    // 2. switch to v2: v1 still held for verifying old signatures.
    const switched = withCurrent(added, 2)
    expect(switched.current).toBe(2)
    expect(switched.currentKey).toBe("key-v2")
    expect(switched.get(1)).toBe("key-v1")

    // 3. remove v1.
    const done = remove(switched, 1)
    expect(contents(done)).toEqual({ current: 2, currentKey: "key-v2", versions: [2], keys: ["key-v2"] })

    expect(contents(v1)).toEqual({ current: 1, currentKey: "key-v1", versions: [1], keys: ["key-v1"] })
    expect(added.current).toBe(1)
    expect(switched.versions).toEqual([1, 2])
  })
})

describe("importSigners and importVerifiers (ring shape, with a fake provider)", () => {
  // A stand-in for a crypto adapter: the provider interface is the boundary, so this checks only
  // that each PEM goes through the provider once and lands at its version.
  const fakeProvider = () => {
    const calls: Array<{ kind: "private" | "public"; pem: string }> = []
    const provider: CryptoProvider = {
      runtime: "fake",
      importPrivateKey: async (pem: string): Promise<Signer> => {
        calls.push({ kind: "private", pem })
        if (pem === "bad") throw new Error("bad key")
        return { modulusLength: 2048, sign: async (message: Message) => `signed(${pem}):${String(message)}` }
      },
      importPublicKey: async (pem: string): Promise<Verifier> => {
        calls.push({ kind: "public", pem })
        if (pem === "bad") throw new Error("bad key")
        return {
          modulusLength: 2048,
          verify: async (message: Message, signature: string | Uint8Array) =>
            signature === `signed(${pem}):${String(message)}`
        }
      }
    }
    return { provider, calls }
  }

  it("importSigners makes a ring of signers, one import per PEM, current defaulting to the highest", async () => {
    const { provider, calls } = fakeProvider()
    const ring = await importSigners(provider, { 1: "pem-1", 2: "pem-2" })
    expect(ring.versions).toEqual([1, 2])
    expect(ring.current).toBe(2)
    expect(await ring.currentKey.sign("x")).toBe("signed(pem-2):x")
    expect(await ring.get(1)!.sign("x")).toBe("signed(pem-1):x")
    expect(calls.map((c) => c.kind)).toEqual(["private", "private"])
    expect(calls.map((c) => c.pem).sort()).toEqual(["pem-1", "pem-2"])
  })

  it("importSigners honours an explicit current version and accepts a Map and pairs", async () => {
    const { provider } = fakeProvider()
    const fromMap = await importSigners(
      provider,
      new Map([
        [1, "pem-1"],
        [2, "pem-2"]
      ]),
      1
    )
    expect(fromMap.current).toBe(1)
    expect(await fromMap.currentKey.sign("m")).toBe("signed(pem-1):m")
    const fromPairs = await importSigners(provider, [[3, "pem-3"]])
    expect(fromPairs.current).toBe(3)
  })

  it("importVerifiers makes a ring of verifiers through importPublicKey", async () => {
    const { provider, calls } = fakeProvider()
    const ring = await importVerifiers(provider, { 1: "pub-1", 2: "pub-2" }, 1)
    expect(ring.current).toBe(1)
    expect(await ring.get(2)!.verify("m", "signed(pub-2):m")).toBe(true)
    expect(await ring.get(2)!.verify("m", "signed(pub-1):m")).toBe(false)
    expect(calls.every((c) => c.kind === "public")).toBe(true)
    expect(calls).toHaveLength(2)
  })

  it("reject with KeyRingError for a bad version, an empty set or an unknown current version", async () => {
    const { provider } = fakeProvider()
    const invalid = await rejectionOf(importSigners(provider, { "01": "pem" } as Record<number, string>))
    expect(invalid).toBeInstanceOf(KeyRingError)
    expect((invalid as KeyRingError).reason).toBe("InvalidVersion")
    const empty = await rejectionOf(importVerifiers(provider, {}))
    expect((empty as KeyRingError).reason).toBe("Empty")
    const unknown = await rejectionOf(importVerifiers(provider, { 1: "pub-1" }, 2))
    expect((unknown as KeyRingError).reason).toBe("UnknownCurrentVersion")
  })

  it("pass on the provider's rejection", async () => {
    const { provider } = fakeProvider()
    const e = await rejectionOf(importSigners(provider, { 1: "good", 2: "bad" }))
    expect(e).toBeInstanceOf(Error)
    expect((e as Error).message).toBe("bad key")
  })
})

describe("KeyRing.make with a repeated version", () => {
  it("refuses it instead of silently keeping one key", () => {
    expect(() =>
      make([
        [1, "a"],
        [1, "b"]
      ])
    ).toThrow(expect.objectContaining({ reason: "DuplicateVersion" }))
  })
})
