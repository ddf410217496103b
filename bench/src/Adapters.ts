// The crypto adapters against the raw runtime crypto they wrap: the same key, the same message, in
// alternating pairs, repeated until the last three ratios agree (or a cap), reporting their spread.
import { Canonical } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { WebCrypto } from "@pc/crypto-web"
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto"
import { readFileSync } from "node:fs"
import { atLeast, type SuiteResult } from "./Results.js"
import { TEST_MERCHANT_APP_KEY, testMerchantKeyFile } from "./Servers.js"
import { median, round, spread } from "./Stats.js"

/** Operations per second of `op`, awaited one after another, `count` times. */
const rate = async (op: () => unknown, count: number): Promise<number> => {
  const start = performance.now()
  for (let i = 0; i < count; i++) await op()
  return count / ((performance.now() - start) / 1000)
}

/**
 * Pairs of (raw, adapter) rounds until the last three ratios lie within `tolerance` of each
 * other, between `minPairs` and `maxPairs` pairs. Alternating puts a noisy neighbour on both sides.
 */
const stableRatio = async (
  raw: () => Promise<number>,
  adapter: () => Promise<number>,
  options: { readonly minPairs: number; readonly maxPairs: number; readonly tolerance: number }
) => {
  const ratios: Array<number> = []
  const rawRates: Array<number> = []
  const adapterRates: Array<number> = []
  while (ratios.length < options.maxPairs) {
    const r = await raw()
    const a = await adapter()
    rawRates.push(r)
    adapterRates.push(a)
    ratios.push(a / r)
    const last = ratios.slice(-3)
    if (ratios.length >= options.minPairs && last.length === 3 && spread(last).relative <= options.tolerance) break
  }
  const s = spread(ratios)
  return {
    ratio: median(ratios),
    figures: {
      pairs: ratios.length,
      ratios: ratios.map((v) => round(v)),
      spread: { min: round(s.min), max: round(s.max) },
      rawOpsPerSecond: round(median(rawRates), 0),
      adapterOpsPerSecond: round(median(adapterRates), 0)
    }
  }
}

export const adaptersSuite = async (options: {
  readonly signs: number
  readonly verifies: number
  readonly minPairs: number
  readonly maxPairs: number
}): Promise<SuiteResult> => {
  const privatePem = readFileSync(testMerchantKeyFile("private"), "utf8")
  const publicPem = readFileSync(testMerchantKeyFile("public"), "utf8")
  const message = Canonical.requestStringToSign({
    method: "POST",
    path: "/openapi/v2/order/create",
    appKey: TEST_MERCHANT_APP_KEY,
    timestamp: 1763712000000,
    body: '{"orderId":"M-1001","amount":"10.00","currency":"USD"}'
  })
  const rawPrivate = createPrivateKey(privatePem)
  const rawPublic = createPublicKey(publicPem)
  const nodeSigner = await NodeCrypto.importPrivateKey(privatePem)
  const nodeVerifier = await NodeCrypto.importPublicKey(publicPem)
  const signature = await nodeSigner.sign(message)

  const subtle = globalThis.crypto.subtle
  const algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }
  const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ""), "base64")
  const rawWebPrivate = await subtle.importKey("pkcs8", der(privatePem), algorithm, false, ["sign"])
  const rawWebPublic = await subtle.importKey("spki", der(publicPem), algorithm, false, ["verify"])
  const webSigner = await WebCrypto.importPrivateKey(privatePem)
  const webVerifier = await WebCrypto.importPublicKey(publicPem)
  const encoder = new TextEncoder()
  const pairs = { minPairs: options.minPairs, maxPairs: options.maxPairs, tolerance: 0.05 }

  // The raw sides do what the adapter's contract does: string in, standard Base64 out (and back).
  const results = {
    "node sign": await stableRatio(
      () => rate(() => sign("sha256", Buffer.from(message), rawPrivate).toString("base64"), options.signs),
      () => rate(() => nodeSigner.sign(message), options.signs),
      pairs
    ),
    "node verify": await stableRatio(
      () =>
        rate(
          () => verify("sha256", Buffer.from(message), rawPublic, Buffer.from(signature, "base64")),
          options.verifies
        ),
      () => rate(() => nodeVerifier.verify(message, signature), options.verifies),
      pairs
    ),
    "web sign": await stableRatio(
      () =>
        rate(
          async () =>
            Buffer.from(await subtle.sign(algorithm, rawWebPrivate, encoder.encode(message))).toString("base64"),
          options.signs
        ),
      () => rate(() => webSigner.sign(message), options.signs),
      pairs
    ),
    "web verify": await stableRatio(
      () =>
        rate(
          () => subtle.verify(algorithm, rawWebPublic, Buffer.from(signature, "base64"), encoder.encode(message)),
          options.verifies
        ),
      () => rate(() => webVerifier.verify(message, signature), options.verifies),
      pairs
    )
  }
  return {
    targets: Object.fromEntries(
      Object.entries(results).map(([name, r]) => [
        `${name} adapter/raw ops/s`,
        atLeast(
          r.ratio,
          0.95,
          "x",
          `median of alternating pairs until the last three agree within 5% (spread in figures)`
        )
      ])
    ),
    figures: Object.fromEntries(Object.entries(results).map(([name, r]) => [name, r.figures]))
  }
}
