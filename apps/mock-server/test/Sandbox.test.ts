// Sandbox (CONTRACT.md "Environments"): only X-R-AK must name a known merchant; every other
// signing mistake still succeeds, and X-R-Signature-Check says what production would have decided.
import { Canonical, type Crypto, Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { dev, testMerchantSigner } from "./support/mock.js"
import { type Mock, startMock } from "@pc/test-support/mock"

interface Answer {
  readonly status: number
  readonly headers: globalThis.Headers
  readonly code: string
  readonly msg: string | null
  readonly data: unknown
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

interface Options {
  readonly appKey?: string | null
  readonly timestamp?: number
  readonly keyVersion?: number
  readonly signer?: Crypto.Signer
  readonly signature?: string | null
  readonly stringToSign?: string
}

let merchantSigner: Crypto.Signer
let strangerSigner: Crypto.Signer
let mock: Mock

const create = async (body: string, options: Options = {}): Promise<Answer> => {
  const appKey = options.appKey === undefined ? TEST_MERCHANT_APP_KEY : options.appKey
  const timestamp = String(options.timestamp ?? Date.now())
  const text =
    options.stringToSign ??
    Canonical.requestStringToSign({
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      appKey: appKey ?? "",
      timestamp,
      body
    })
  const signature =
    options.signature === undefined ? await (options.signer ?? merchantSigner).sign(text) : options.signature
  const headers: Record<string, string> = {
    "content-type": "application/json",
    [Headers.RequestHeaders.timestamp]: timestamp,
    [Headers.RequestHeaders.keyVersion]: String(options.keyVersion ?? 1)
  }
  if (appKey !== null) headers[Headers.RequestHeaders.appKey] = appKey
  if (signature !== null) headers[Headers.RequestHeaders.signature] = signature
  const response = await fetch(`${mock.url}${Wire.CREATE_ORDER_PATH}`, { method: "POST", headers, body })
  const json: unknown = await response.json()
  if (!isRecord(json) || typeof json.code !== "string") throw new Error(`not an envelope: ${JSON.stringify(json)}`)
  expect(Object.keys(json).sort()).toEqual(["code", "data", "msg"])
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  expect(response.headers.get("x-request-id")).toBeTruthy()
  const msg = json.msg
  if (msg !== null && typeof msg !== "string") throw new Error(`msg is not a string: ${JSON.stringify(json)}`)
  return { status: response.status, headers: response.headers, code: json.code, msg, data: json.data }
}

const check = (answer: Answer) => answer.headers.get(Headers.SIGNATURE_CHECK)

let sequence = 0
const body = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    orderId: `S-${++sequence}-${randomUUID().slice(0, 8)}`,
    amount: "10.00",
    currency: "USD",
    ...fields
  })

const expectSuccess = (answer: Answer) => {
  expect({ status: answer.status, code: answer.code, msg: answer.msg }).toEqual({
    status: 200,
    code: "SUCCESS",
    msg: null
  })
  if (!isRecord(answer.data)) throw new Error("data is not an object")
  expect(typeof answer.data.orderSn).toBe("string")
  expect(new URL(String(answer.data.h5Url)).pathname).toBe(`/h5/checkout/${String(answer.data.orderSn)}`)
}

beforeAll(async () => {
  merchantSigner = await testMerchantSigner()
  strangerSigner = await NodeCrypto.importPrivateKey((await KeyPair.generate(2048)).privateKeyPem)
  mock = await startMock({ environment: "sandbox" })
})
afterAll(async () => {
  await mock?.close()
})

describe("sandbox: X-R-Signature-Check", () => {
  it("is the default environment of the mock", async () => {
    const health = await dev<{ environment: string }>(mock.url, "GET", "/healthz")
    expect(health.json.data?.environment).toBe("sandbox")
  })

  it("says valid for a correctly signed request", async () => {
    const answer = await create(body())
    expectSuccess(answer)
    expect(check(answer)).toBe("valid")
  })

  describe("says invalid, and still succeeds", () => {
    it("for a signature made with another key", async () => {
      const answer = await create(body(), { signer: strangerSigner })
      expectSuccess(answer)
      expect(check(answer)).toBe("invalid")
    })

    it("for a stale timestamp (10 minutes old)", async () => {
      const answer = await create(body(), { timestamp: Date.now() - 10 * 60_000 })
      expectSuccess(answer)
      expect(check(answer)).toBe("invalid")
    })

    it("for a timestamp 10 minutes ahead", async () => {
      const answer = await create(body(), { timestamp: Date.now() + 10 * 60_000 })
      expectSuccess(answer)
      expect(check(answer)).toBe("invalid")
    })

    it("for a key version the merchant never uploaded", async () => {
      const answer = await create(body(), { keyVersion: 2 })
      expectSuccess(answer)
      expect(check(answer)).toBe("invalid")
    })

    it("for a request signed with key version 1 but labelled version 2", async () => {
      const pair = await KeyPair.generate(2048)
      const second = await KeyPair.generate(2048)
      const created = await dev<{ appKey: string }>(mock.url, "POST", "/dev/merchants", {
        publicKeyPem: pair.publicKeyPem
      })
      const appKey = created.json.data!.appKey
      await dev(mock.url, "POST", `/dev/merchants/${appKey}/keys`, { publicKeyPem: second.publicKeyPem })
      const signer = await NodeCrypto.importPrivateKey(pair.privateKeyPem)
      const wrong = await create(body(), { appKey, signer, keyVersion: 2 })
      expectSuccess(wrong)
      expect(check(wrong)).toBe("invalid")
      const right = await create(body(), { appKey, signer, keyVersion: 1 })
      expect(check(right)).toBe("valid")
    })

    it("for a body altered after signing", async () => {
      const signedBody = body()
      const timestamp = Date.now()
      const stringToSign = Canonical.requestStringToSign({
        method: "POST",
        path: Wire.CREATE_ORDER_PATH,
        appKey: TEST_MERCHANT_APP_KEY,
        timestamp,
        body: signedBody
      })
      const answer = await create(`${signedBody}\n`, { timestamp, stringToSign })
      expectSuccess(answer)
      expect(check(answer)).toBe("invalid")
    })

    it("for a URL-encoded signature", async () => {
      const text = body()
      const timestamp = Date.now()
      const signature = await merchantSigner.sign(
        Canonical.requestStringToSign({
          method: "POST",
          path: Wire.CREATE_ORDER_PATH,
          appKey: TEST_MERCHANT_APP_KEY,
          timestamp,
          body: text
        })
      )
      const answer = await create(text, { timestamp, signature: encodeURIComponent(signature) })
      expectSuccess(answer)
      expect(check(answer)).toBe("invalid")
    })
  })

  it("says missing for a request without X-R-Signature, and still succeeds", async () => {
    const answer = await create(body(), { signature: null })
    expectSuccess(answer)
    expect(check(answer)).toBe("missing")
  })
})

describe("sandbox: X-R-AK is still checked", () => {
  it("refuses a request without X-R-AK with signError", async () => {
    const answer = await create(body(), { appKey: null })
    expect(answer.status).toBe(401)
    expect(answer.code).toBe("signError")
    expect(answer.msg).toMatch(/^signature verification failed: .*X-R-AK/)
    expect(answer.data).toBeNull()
  })

  it("refuses an unknown appKey with signError", async () => {
    const appKey = randomUUID()
    const answer = await create(body(), { appKey })
    expect(answer.status).toBe(401)
    expect(answer.code).toBe("signError")
    expect(answer.msg).toMatch(new RegExp(`^signature verification failed: unknown appKey ${appKey}`))
    expect(answer.data).toBeNull()
  })

  it.each([
    ["a short text", "not-an-app-key"],
    ["15 KB of text", "k".repeat(15_000)],
    ["a UUID with something after it", `${TEST_MERCHANT_APP_KEY}x`]
  ])("refuses an X-R-AK that is not a UUID (%s) as malformed, before any lookup", async (_, appKey) => {
    const answer = await create(body(), { appKey })
    expect(answer.status).toBe(401)
    expect(answer.code).toBe("signError")
    expect(answer.msg).toBe("signature verification failed: malformed header X-R-AK: the appKey is a UUID")
    expect(check(answer)).toBe("invalid")
  })

  it("finds the merchant whatever the case of X-R-AK; production's verdict covers X-R-AK as sent", async () => {
    const upper = TEST_MERCHANT_APP_KEY.toUpperCase()
    const text = body()
    const first = await create(text, { appKey: upper })
    expectSuccess(first)
    expect(check(first)).toBe("valid")
    // The same merchant: the same orderId gives the same order.
    const again = await create(text)
    expectSuccess(again)
    expect(again.data).toEqual(first.data)
    // Signed over the lower-case form while X-R-AK says upper case: production would refuse it.
    const timestamp = Date.now()
    const other = body()
    const stringToSign = Canonical.requestStringToSign({
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      appKey: TEST_MERCHANT_APP_KEY,
      timestamp,
      body: other
    })
    const mismatched = await create(other, { appKey: upper, timestamp, stringToSign })
    expectSuccess(mismatched)
    expect(check(mismatched)).toBe("invalid")
  })
})

describe("sandbox: errors after the appKey check carry X-R-Signature-Check", () => {
  it("on a paramError from a validly signed request", async () => {
    const answer = await create(body({ amount: "-1" }))
    expect(answer.status).toBe(400)
    expect(answer.code).toBe("paramError")
    expect(answer.msg).toMatch(/^amount\b/)
    expect(check(answer)).toBe("valid")
  })

  it("on a paramError from an unsigned request", async () => {
    const answer = await create("not json", { signature: null })
    expect(answer.code).toBe("paramError")
    expect(check(answer)).toBe("missing")
  })

  it("on a paramError from a badly signed request", async () => {
    const answer = await create(body({ currency: "usd" }), { signer: strangerSigner })
    expect(answer.code).toBe("paramError")
    expect(answer.msg).toMatch(/^currency\b/)
    expect(check(answer)).toBe("invalid")
  })

  it("on a duplicateOrder", async () => {
    const orderId = `S-dup-${randomUUID()}`
    expectSuccess(await create(JSON.stringify({ orderId, amount: "1.00", currency: "USD" })))
    const answer = await create(JSON.stringify({ orderId, amount: "2.00", currency: "USD" }), { signature: null })
    expect(answer.status).toBe(409)
    expect(answer.code).toBe("duplicateOrder")
    expect(check(answer)).toBe("missing")
  })
})

describe("sandbox: rate limit answers carry X-R-Signature-Check too", () => {
  let limited: Mock
  beforeAll(async () => {
    limited = await startMock({ environment: "sandbox", rateLimitPerMinute: 1 })
  })
  afterAll(async () => {
    await limited?.close()
  })

  it("answers rateLimited with Retry-After and X-R-Signature-Check", async () => {
    const headers = {
      "content-type": "application/json",
      [Headers.RequestHeaders.appKey]: TEST_MERCHANT_APP_KEY,
      [Headers.RequestHeaders.timestamp]: String(Date.now()),
      [Headers.RequestHeaders.keyVersion]: "1"
    }
    const statuses: Array<number> = []
    let refused: Response | undefined
    // Three requests span at most one minute boundary, so one window sees a second request.
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${limited.url}${Wire.CREATE_ORDER_PATH}`, { method: "POST", headers, body: body() })
      statuses.push(response.status)
      if (response.status === 429) refused ??= response
      await response.arrayBuffer()
    }
    expect(statuses[0]).toBe(200)
    expect(refused).toBeDefined()
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(refused!.headers.get(Headers.SIGNATURE_CHECK)).toBe("missing")
  })
})

describe("sandbox: refusals before the order still say what production would decide", () => {
  it("an unknown appKey: invalid when signed, missing when not", async () => {
    const signed = await create(body(), { appKey: randomUUID() })
    expect(signed.code).toBe("signError")
    expect(check(signed)).toBe("invalid")
    const unsigned = await create(body(), { appKey: randomUUID(), signature: null })
    expect(unsigned.code).toBe("signError")
    expect(check(unsigned)).toBe("missing")
  })

  it("a wrong Content-Type on a validly signed request: unsupportedMediaType with valid", async () => {
    const text = body()
    const timestamp = String(Date.now())
    const signature = await merchantSigner.sign(
      Canonical.requestStringToSign({
        method: "POST",
        path: Wire.CREATE_ORDER_PATH,
        appKey: TEST_MERCHANT_APP_KEY,
        timestamp,
        body: text
      })
    )
    const response = await fetch(`${mock.url}${Wire.CREATE_ORDER_PATH}`, {
      method: "POST",
      headers: {
        "content-type": "text/plain",
        [Headers.RequestHeaders.appKey]: TEST_MERCHANT_APP_KEY,
        [Headers.RequestHeaders.timestamp]: timestamp,
        [Headers.RequestHeaders.keyVersion]: "1",
        [Headers.RequestHeaders.signature]: signature
      },
      body: text
    })
    expect(response.status).toBe(415)
    expect(((await response.json()) as { code: string }).code).toBe("unsupportedMediaType")
    expect(response.headers.get("x-r-signature-check")).toBe("valid")
  })
})
