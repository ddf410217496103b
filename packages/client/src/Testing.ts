/**
 * Test helpers for merchants' webhook handlers, like stripe-node's `generateTestHeaderString`: sign
 * a callback event with a test platform key and get the verifier options that accept it, so a
 * handler is unit-tested with real signatures and no mock server. Never use a test key in production.
 *
 * Importable alone as `@pc/client/testing`; it loads no `effect` at run time.
 *
 * @since 0.1.0
 */
import * as Canonical from "@pc/core/Canonical"
import type * as Crypto from "@pc/core/Crypto"
import type * as Environment from "@pc/core/Environment"
import * as Headers from "@pc/core/Headers"
import type * as Wire from "@pc/core/Wire"
import { WebCrypto } from "@pc/crypto-web"
import type { CallbackVerifierOptions } from "./Promise.js"

/**
 * A test platform key pair as PEM: PKCS#8 private key, SPKI public key.
 *
 * @example
 * ```ts
 * import { Testing } from "@pc/client"
 *
 * const key: Testing.TestPlatformKey = await Testing.generatePlatformKey()
 * ```
 */
export interface TestPlatformKey {
  readonly privateKeyPem: string
  readonly publicKeyPem: string
}

const pem = (label: string, der: ArrayBuffer): string => {
  const base64 = btoa(String.fromCharCode(...new Uint8Array(der)))
  return `-----BEGIN ${label}-----\n${base64.replace(/.{1,64}/g, "$&\n")}-----END ${label}-----\n`
}

/**
 * Generates a 2048-bit RSA test platform key pair with the runtime's Web Crypto (Node 20+, Bun,
 * Deno, workers).
 *
 * Rejects when the runtime has no `crypto.subtle`.
 *
 * @example
 * ```ts
 * import { Testing } from "@pc/client"
 *
 * const platformKey = await Testing.generatePlatformKey()
 * ```
 */
export const generatePlatformKey = async (): Promise<TestPlatformKey> => {
  const pair = await globalThis.crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"]
  )
  return {
    privateKeyPem: pem("PRIVATE KEY", await globalThis.crypto.subtle.exportKey("pkcs8", pair.privateKey)),
    publicKeyPem: pem("PUBLIC KEY", await globalThis.crypto.subtle.exportKey("spki", pair.publicKey))
  }
}

/**
 * A callback event as the service sends it (CONTRACT.md "Callbacks"), with test values for every
 * field you do not give.
 *
 * @example
 * ```ts
 * import { Testing } from "@pc/client"
 *
 * const event = Testing.callbackEvent({ eventType: "order.failed", outerOrder: "M-1001" })
 * event.status // "FAILED"
 * ```
 */
export const callbackEvent = (fields: Partial<Wire.CallbackEvent> = {}): Wire.CallbackEvent => {
  const eventType = fields.eventType ?? "order.paid"
  const status = eventType === "order.paid" ? "PAID" : eventType === "order.failed" ? "FAILED" : "EXPIRED"
  const at = new Date(0).toISOString()
  // Key order as the service writes it: the body's bytes are what is signed.
  return {
    eventId: fields.eventId ?? `evt_test_${globalThis.crypto.randomUUID()}`,
    eventType,
    orderSn: fields.orderSn ?? "TEST-ORDER-SN",
    outerOrder: fields.outerOrder ?? "M-TEST-1",
    amount: fields.amount ?? "10.00",
    currency: fields.currency ?? "USD",
    status: fields.status ?? status,
    createdAt: fields.createdAt ?? at,
    updatedAt: fields.updatedAt ?? at
  }
}

/**
 * What {@link signCallback} takes.
 *
 * @example
 * ```ts
 * import type { Testing } from "@pc/client"
 *
 * const options: Testing.SignCallbackOptions = { appKey, platformPrivateKeyPem: platformKey.privateKeyPem }
 * ```
 */
export interface SignCallbackOptions {
  /** Your merchant appKey: the service signs `<appKey>.<X-R-Ts>.<body>`. */
  readonly appKey: string
  /** The test platform private key (PKCS#8 or PKCS#1 PEM). */
  readonly platformPrivateKeyPem: string
  /** The event, or the exact body text; default {@link callbackEvent}() as compact JSON. */
  readonly event?: Wire.CallbackEvent | string | undefined
  /** `X-R-Key-Version`; default 1. */
  readonly keyVersion?: number | undefined
  /** `X-R-Ts` in Unix epoch milliseconds; default now. Give an old one to test the stale-timestamp refusal. */
  readonly timestamp?: number | undefined
  /** Imports the key; default `WebCrypto` (`@pc/crypto-web`). */
  readonly crypto?: Crypto.CryptoProvider | undefined
}

/**
 * A signed callback: the exact body and the headers to send it with.
 *
 * @example
 * ```ts
 * import type { Testing } from "@pc/client"
 *
 * const toRequest = (signed: Testing.SignedCallback) =>
 *   new Request("http://localhost/webhook", { method: "POST", headers: signed.headers, body: signed.body })
 * ```
 */
export interface SignedCallback {
  readonly body: string
  readonly headers: {
    readonly "Content-Type": "application/json"
    readonly "X-R-Ts": string
    readonly "X-R-Key-Version": string
    readonly "X-R-Signature": string
  }
  readonly timestamp: number
  readonly keyVersion: number
}

/**
 * Signs a callback as the service does, with a test platform key.
 *
 * Rejects with `KeyImportError` (from `@pc/core`) when the private key is not a usable RSA key.
 *
 * @example
 * ```ts
 * import { Testing } from "@pc/client"
 *
 * const platformKey = await Testing.generatePlatformKey()
 * const signed = await Testing.signCallback({ appKey, platformPrivateKeyPem: platformKey.privateKeyPem })
 * const response = await myWebhookHandler(
 *   new Request("http://localhost/webhook", { method: "POST", headers: signed.headers, body: signed.body })
 * )
 * ```
 */
export const signCallback = async (options: SignCallbackOptions): Promise<SignedCallback> => {
  const event = options.event ?? callbackEvent()
  const body = typeof event === "string" ? event : JSON.stringify(event)
  const timestamp = options.timestamp ?? Date.now()
  const keyVersion = options.keyVersion ?? 1
  const signer = await (options.crypto ?? WebCrypto).importPrivateKey(options.platformPrivateKeyPem)
  const signature = await signer.sign(Canonical.callbackStringToSign({ appKey: options.appKey, timestamp, body }))
  return {
    body,
    headers: {
      "Content-Type": "application/json",
      [Headers.CallbackHeaders.timestamp]: String(timestamp),
      [Headers.CallbackHeaders.keyVersion]: String(keyVersion),
      [Headers.CallbackHeaders.signature]: signature
    } as SignedCallback["headers"],
    timestamp,
    keyVersion
  }
}

/**
 * The options of `createCallbackVerifier` (and `createPaymentClient`'s callback part) from
 * `@pc/client/promise` that accept callbacks signed by {@link signCallback} with this test key.
 *
 * @example
 * ```ts
 * import { Testing } from "@pc/client"
 * import { createCallbackVerifier } from "@pc/client/promise"
 *
 * const verifier = await createCallbackVerifier(
 *   Testing.verifierOptions({ appKey, platformPublicKeyPem: platformKey.publicKeyPem })
 * )
 * ```
 */
export const verifierOptions = (options: {
  readonly appKey: string
  readonly platformPublicKeyPem: string
  /** Default `sandbox`. */
  readonly environment?: Environment.Environment | undefined
  /** Default 1, as in {@link signCallback}. */
  readonly keyVersion?: number | undefined
}): CallbackVerifierOptions => {
  const environment = options.environment ?? "sandbox"
  return {
    environment,
    appKey: options.appKey,
    platformKeys: { [environment]: { [options.keyVersion ?? 1]: options.platformPublicKeyPem } }
  }
}

export { type AuditHandlerOptions, auditHandler, type FetchHandler } from "./TestingAudit.js"
