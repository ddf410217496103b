// Signs callbacks as the service does (spec 5.5, CONTRACT.md "Callbacks"), with the vector
// platform keys: SHA256withRSA over `<merchant appKey>.<X-R-Ts>.<body>`.
import { Canonical, KeyRing } from "@pc/core"
import { NodeCrypto } from "@pc/crypto-node"
import type { PlatformKeyRing } from "../../src/Callback.js"
import { APP_KEY, keyOf } from "./vectors.js"

/** A compact callback body in the contract's field order. */
export const eventBody = (overrides: Partial<Record<string, string>> = {}): string =>
  JSON.stringify({
    eventId: "evt_01",
    eventType: "order.paid",
    orderSn: "PC202611210001",
    outerOrder: "M-1001",
    amount: "10.00",
    currency: "USD",
    status: "PAID",
    createdAt: "2026-11-21T08:00:00.000Z",
    updatedAt: "2026-11-21T08:05:00.000Z",
    ...overrides
  })

/** Signs a callback body with a vector key; returns the three callback headers as the spec spells them. */
export const signCallback = async (options: {
  readonly key: string
  readonly keyVersion?: number
  readonly timestamp: number
  readonly body: string | Uint8Array
  readonly appKey?: string
}): Promise<Record<"X-R-Ts" | "X-R-Key-Version" | "X-R-Signature", string>> => {
  const signer = await NodeCrypto.importPrivateKey(keyOf(options.key).privatePkcs8Pem)
  const appKey = options.appKey ?? APP_KEY
  const message =
    typeof options.body === "string"
      ? Canonical.callbackStringToSign({ appKey, timestamp: options.timestamp, body: options.body })
      : Canonical.callbackBytesToSign(appKey, options.timestamp, options.body)
  return {
    "X-R-Ts": String(options.timestamp),
    "X-R-Key-Version": String(options.keyVersion ?? 1),
    "X-R-Signature": await signer.sign(message)
  }
}

/** The platform public keys of both environments, version 1 each (the vectors' platform keys). */
export const platformKeys: Promise<PlatformKeyRing> = Promise.all([
  KeyRing.importVerifiers(NodeCrypto, { 1: keyOf("platform-sandbox-v1").publicSpkiPem }),
  KeyRing.importVerifiers(NodeCrypto, { 1: keyOf("platform-production-v1").publicSpkiPem })
]).then(([sandbox, production]) => ({ sandbox, production }))
