// The crypto adapters against the raw runtime crypto they wrap: the same key kind, the same message,
// one await per operation on both sides, interleaved operation by operation, in blocks repeated
// until the last three ratios agree (or a cap), reporting their spread.
import { Canonical } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import { WebCrypto } from "@pc/crypto-web"
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto"
import { readFileSync } from "node:fs"
import { atLeast, type SuiteResult } from "./Results.js"
import { TEST_MERCHANT_APP_KEY, testMerchantKeyFile } from "./Servers.js"
import { median, round, spread } from "./Stats.js"

type Op = () => unknown

/**
 * Operations per second of `raw` and of `adapter` over `count` of each, interleaved one by one
 * (the order swapping every operation) and each awaited, from the median time of one operation:
 * on this shared machine a neighbour's time slice lands inside single operations (a 1.5 ms
 * signature that takes 8 ms), and a mean over a block then mostly measures where those fell.
 */
const interleavedRates = async (raw: Op, adapter: Op, count: number) => {
  const rawMs: Array<number> = []
  const adapterMs: Array<number> = []
  for (let i = 0; i < count; i++) {
    const rawFirst = i % 2 === 0
    const t0 = performance.now()
    await (rawFirst ? raw : adapter)()
    const t1 = performance.now()
    await (rawFirst ? adapter : raw)()
    const t2 = performance.now()
    ;(rawFirst ? rawMs : adapterMs).push(t1 - t0)
    ;(rawFirst ? adapterMs : rawMs).push(t2 - t1)
  }
  return { raw: 1000 / median(rawMs), adapter: 1000 / median(adapterMs) }
}

/**
 * Blocks of interleaved operations until the last three blocks' ratios lie within `tolerance` of
 * each other, between `minPairs` and `maxPairs` blocks, after three untimed blocks that warm both
 * (the adapter's few extra functions reach optimised code later than the one raw call: with one
 * warm-up block the first timed blocks of node verify read 0.92, the later ones 0.98). The ratio is
 * the median of the blocks'.
 */
const stableRatio = async (
  raw: Op,
  adapter: Op,
  count: number,
  options: { readonly minPairs: number; readonly maxPairs: number; readonly tolerance: number }
) => {
  const ratios: Array<number> = []
  const rawRates: Array<number> = []
  const adapterRates: Array<number> = []
  for (let i = 0; i < 3; i++) await interleavedRates(raw, adapter, count)
  let converged = false
  while (ratios.length < options.maxPairs) {
    const rates = await interleavedRates(raw, adapter, count)
    rawRates.push(rates.raw)
    adapterRates.push(rates.adapter)
    ratios.push(rates.adapter / rates.raw)
    const last = ratios.slice(-3)
    converged = last.length === 3 && spread(last).relative <= options.tolerance
    if (ratios.length >= options.minPairs && converged) break
  }
  const s = spread(ratios)
  return {
    ratio: median(ratios),
    figures: {
      blocks: ratios.length,
      converged,
      ratios: ratios.map((v) => round(v)),
      spread: { min: round(s.min), max: round(s.max), relative: round(s.relative) },
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
      () => sign("sha256", Buffer.from(message), rawPrivate).toString("base64"),
      () => nodeSigner.sign(message),
      options.signs,
      pairs
    ),
    "node verify": await stableRatio(
      () => verify("sha256", Buffer.from(message), rawPublic, Buffer.from(signature, "base64")),
      () => nodeVerifier.verify(message, signature),
      options.verifies,
      pairs
    ),
    "web sign": await stableRatio(
      async () => Buffer.from(await subtle.sign(algorithm, rawWebPrivate, encoder.encode(message))).toString("base64"),
      () => webSigner.sign(message),
      options.signs,
      pairs
    ),
    "web verify": await stableRatio(
      () => subtle.verify(algorithm, rawWebPublic, Buffer.from(signature, "base64"), encoder.encode(message)),
      () => webVerifier.verify(message, signature),
      options.verifies,
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
          `operations interleaved one by one, median operation time per block; median of blocks until the last three agree within 5%, at most ${options.maxPairs} (spread and convergence in figures)`
        )
      ])
    ),
    figures: Object.fromEntries(Object.entries(results).map(([name, r]) => [name, r.figures]))
  }
}
