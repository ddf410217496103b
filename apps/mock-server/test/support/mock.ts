// Signs requests to a mock (started by @pc/test-support/mock's startMock) with real RSA keys,
// exactly as a merchant would, and calls its developer menu.
import { Canonical, type Crypto, type Environment, Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { NodeCrypto } from "@pc/crypto-node"
import { TEST_MERCHANT_APP_KEY, testMerchantPrivateKeyPem } from "@pc/test-support/mock"

export const testMerchantSigner = (): Promise<Crypto.Signer> => NodeCrypto.importPrivateKey(testMerchantPrivateKeyPem())

/** The X-R-Signature of a create-order request with this exact body and timestamp (test merchant by default). */
export const signCreateOrder = (
  signer: Crypto.Signer,
  input: { readonly timestamp: string; readonly body: string; readonly appKey?: string }
): Promise<string> =>
  signer.sign(
    Canonical.requestStringToSign({
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      appKey: input.appKey ?? TEST_MERCHANT_APP_KEY,
      timestamp: input.timestamp,
      body: input.body
    })
  )

export interface SignedRequestOptions {
  readonly appKey?: string
  readonly keyVersion?: number | string
  readonly timestamp?: number | string
  readonly signer?: Crypto.Signer
  /** Replace the computed signature (or `null` to send none). */
  readonly signature?: string | null
  readonly contentType?: string | null
  readonly extraHeaders?: Record<string, string>
}

/** Sends a signed create-order request with the exact body text given. */
export const createOrder = async (
  baseUrl: string,
  body: string,
  options: SignedRequestOptions = {}
): Promise<{
  readonly status: number
  readonly headers: globalThis.Headers
  readonly json: Wire.Envelope<unknown>
}> => {
  const appKey = options.appKey ?? TEST_MERCHANT_APP_KEY
  const timestamp = String(options.timestamp ?? Date.now())
  const signer = options.signer ?? (await testMerchantSigner())
  const signature =
    options.signature === undefined ? await signCreateOrder(signer, { appKey, timestamp, body }) : options.signature
  const headers: Record<string, string> = {
    [Headers.RequestHeaders.appKey]: appKey,
    [Headers.RequestHeaders.timestamp]: timestamp,
    [Headers.RequestHeaders.keyVersion]: String(options.keyVersion ?? 1),
    ...options.extraHeaders
  }
  if (signature !== null) headers[Headers.RequestHeaders.signature] = signature
  if (options.contentType !== null) headers["content-type"] = options.contentType ?? "application/json"
  const response = await fetch(`${baseUrl}${Wire.CREATE_ORDER_PATH}`, { method: "POST", headers, body })
  return { status: response.status, headers: response.headers, json: (await response.json()) as Wire.Envelope<unknown> }
}

/** Calls a /dev route and returns status and envelope. */
export const dev = async <T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown
): Promise<{ readonly status: number; readonly json: Wire.Envelope<T> }> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  })
  return { status: response.status, json: (await response.json()) as Wire.Envelope<T> }
}

export const environments: ReadonlyArray<Environment.Environment> = ["sandbox", "production", "gray"]
