// The openssl-made vectors, copied from shared/vectors/signatures.json into this repository so that
// tests never read outside it. Typed here once for every suite that uses them.
import raw from "../fixtures/signatures.json" with { type: "json" }

export interface VectorKey {
  readonly bits: number
  readonly privatePkcs8Pem: string
  readonly privatePkcs1Pem: string
  readonly publicSpkiPem: string
  readonly publicPkcs1Pem: string
}

export interface RequestVector {
  readonly name: string
  readonly method: string
  readonly path: string
  readonly appKey: string
  readonly timestamp: string
  readonly keyVersion: number
  readonly body: string
  readonly key: string
  readonly stringToSign: string
  readonly signature: string
}

export interface CallbackVector {
  readonly name: string
  readonly environment: string
  readonly appKey: string
  readonly timestamp: string
  readonly keyVersion: number
  readonly body: string
  readonly key: string
  readonly stringToSign: string
  readonly signature: string
}

export interface NegativeVector extends Omit<RequestVector, "stringToSign"> {
  readonly why: string
}

export interface Vectors {
  readonly keys: Readonly<Record<string, VectorKey>>
  readonly requests: ReadonlyArray<RequestVector>
  readonly callbacks: ReadonlyArray<CallbackVector>
  readonly negative: ReadonlyArray<NegativeVector>
}

export const vectors: Vectors = raw

/** The key a vector names; throws if the fixture is inconsistent, so a typo fails loudly. */
export const keyOf = (name: string): VectorKey => {
  const key = vectors.keys[name]
  if (key === undefined) throw new Error(`vector key ${name} is not in the fixture`)
  return key
}

/** The Base64 body of a PEM, unwrapped: how some portals show a public key. */
export const pemBody = (pem: string): string => pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "")
