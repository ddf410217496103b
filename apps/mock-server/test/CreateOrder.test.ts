// The create-order contract (CONTRACT.md "Error codes and HTTP statuses", "Create order") over real
// HTTP on 127.0.0.1, signed with real RSA keys, in production and gray.
import { Canonical, type Crypto, Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { randomUUID } from "node:crypto"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { createOrder, dev, testMerchantSigner } from "./support/mock.js"
import { type Mock, startMock } from "@pc/test-support/mock"

interface Answer {
  readonly status: number
  readonly headers: globalThis.Headers
  readonly text: string
  readonly json: unknown
}

interface Envelope {
  readonly code: string
  readonly msg: string | null
  readonly data: unknown
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Narrows a parsed body to the envelope, failing the test when it is anything else. */
const envelopeOf = (json: unknown): Envelope => {
  if (!isRecord(json)) throw new Error(`not an envelope: ${JSON.stringify(json)}`)
  expect(Object.keys(json).sort()).toEqual(["code", "data", "msg"])
  const { code, msg, data } = json
  if (typeof code !== "string") throw new Error(`code is not a string: ${JSON.stringify(json)}`)
  if (msg !== null && typeof msg !== "string") throw new Error(`msg is not a string or null: ${JSON.stringify(json)}`)
  return { code, msg, data }
}

const encoder = new TextEncoder()

/** Sends exactly these headers and bytes (a Uint8Array body, so fetch adds no Content-Type of its own). */
const send = async (
  url: string,
  init: {
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly body?: string | Uint8Array<ArrayBuffer>
  }
): Promise<Answer> => {
  const body = typeof init.body === "string" ? encoder.encode(init.body) : init.body
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers: init.headers ?? {},
    ...(body === undefined ? {} : { body })
  })
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}

interface SignOptions {
  readonly appKey?: string
  readonly timestamp?: number | string
  readonly keyVersion?: number | string
  readonly signer?: Crypto.Signer
  /** The body that was signed, when it differs from the body sent. */
  readonly signedBody?: string
  /** The whole string to sign, replacing the canonical one. */
  readonly stringToSign?: string
  /** Replace the computed signature, or `null` to send none. */
  readonly signature?: string | null
  readonly contentType?: string | null
  /** Request headers to leave out. */
  readonly omit?: ReadonlyArray<string>
  /** Request headers to send instead of the computed ones. */
  readonly headers?: Record<string, string>
}

let merchantSigner: Crypto.Signer
let strangerSigner: Crypto.Signer

/** A create-order request as a merchant sends it, with every part replaceable. */
const signed = async (
  baseUrl: string,
  body: string | Uint8Array<ArrayBuffer>,
  options: SignOptions = {}
): Promise<Answer> => {
  const appKey = options.appKey ?? TEST_MERCHANT_APP_KEY
  const timestamp = String(options.timestamp ?? Date.now())
  const bodyText = typeof body === "string" ? body : new TextDecoder().decode(body)
  const text =
    options.stringToSign ??
    Canonical.requestStringToSign({
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      appKey,
      timestamp,
      body: options.signedBody ?? bodyText
    })
  const signature =
    options.signature === undefined ? await (options.signer ?? merchantSigner).sign(text) : options.signature
  const headers: Record<string, string> = {
    [Headers.RequestHeaders.appKey]: appKey,
    [Headers.RequestHeaders.timestamp]: timestamp,
    [Headers.RequestHeaders.keyVersion]: String(options.keyVersion ?? 1)
  }
  if (signature !== null) headers[Headers.RequestHeaders.signature] = signature
  if (options.contentType !== null) headers["Content-Type"] = options.contentType ?? "application/json"
  for (const name of options.omit ?? []) delete headers[name]
  return send(`${baseUrl}${Wire.CREATE_ORDER_PATH}`, {
    method: "POST",
    headers: { ...headers, ...options.headers },
    body
  })
}

/** Asserts the envelope, its status, JSON media type and a request id; returns the envelope. */
const expectEnvelope = (answer: Answer, status: number, code: string): Envelope => {
  expect({ status: answer.status, body: answer.text }).toMatchObject({ status })
  expect(answer.headers.get("content-type")).toMatch(/^application\/json\b/)
  expect(answer.headers.get("x-request-id")).toMatch(/^\S{8,}$/)
  const envelope = envelopeOf(answer.json)
  expect(envelope.code).toBe(code)
  if (code === "SUCCESS") {
    expect(envelope.msg).toBeNull()
  } else {
    expect(typeof envelope.msg).toBe("string")
    expect(envelope.data).toBeNull()
  }
  return envelope
}

const expectSignError = (answer: Answer, cause: RegExp): string => {
  const { msg } = expectEnvelope(answer, 401, "signError")
  expect(msg).toMatch(/^signature verification failed: /)
  expect(msg).toMatch(cause)
  return msg!
}

const expectParamError = (answer: Answer, field: string): string => {
  const { msg } = expectEnvelope(answer, 400, "paramError")
  expect(msg).toMatch(new RegExp(`^${field}\\b`))
  return msg!
}

interface CreateResult {
  readonly orderSn: string
  readonly outerOrder: string
  readonly h5Url: string
}

const expectCreated = (answer: Answer, orderId: string): CreateResult => {
  const { data } = expectEnvelope(answer, 200, "SUCCESS")
  if (!isRecord(data)) throw new Error(`data is not an object: ${answer.text}`)
  expect(Object.keys(data).sort()).toEqual(["h5Url", "orderSn", "outerOrder"])
  const { orderSn, outerOrder, h5Url } = data
  if (typeof orderSn !== "string" || typeof outerOrder !== "string" || typeof h5Url !== "string") {
    throw new Error(`unexpected data: ${answer.text}`)
  }
  expect(orderSn).not.toBe("")
  expect(outerOrder).toBe(orderId)
  return { orderSn, outerOrder, h5Url }
}

let sequence = 0
const orderId = (label = "M") => `${label}-${++sequence}-${randomUUID().slice(0, 8)}`
const orderBody = (fields: Record<string, unknown>) => JSON.stringify(fields)
const usd = (id: string, amount: unknown = "10.00") => orderBody({ orderId: id, amount, currency: "USD" })

const MINUTE = 60_000

beforeAll(async () => {
  merchantSigner = await testMerchantSigner()
  strangerSigner = await NodeCrypto.importPrivateKey((await KeyPair.generate(2048)).privateKeyPem)
})

describe.each(["production", "gray"] as const)("POST /openapi/v2/order/create in %s", (environment) => {
  let mock: Mock

  beforeAll(async () => {
    mock = await startMock({ environment })
  })
  afterAll(async () => {
    await mock?.close()
  })

  describe("success", () => {
    it("answers {orderSn, outerOrder, h5Url} with an absolute h5Url to the checkout page on this server", async () => {
      const id = orderId()
      const answer = await signed(mock.url, usd(id))
      const result = expectCreated(answer, id)
      const h5 = new URL(result.h5Url)
      expect(h5.origin).toBe(new URL(mock.url).origin)
      expect(h5.pathname).toBe(`/h5/checkout/${encodeURIComponent(result.orderSn)}`)
      const page = await fetch(result.h5Url)
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toMatch(/^text\/html/)
      expect(await page.text()).toContain(id)
    })

    it("numbers an order PC, its createdAt to the millisecond, then 12 random digits: later orders sort later", async () => {
      const made: Array<{ orderSn: string; createdAt: string }> = []
      for (let i = 0; i < 3; i++) {
        const id = orderId()
        const { orderSn } = expectCreated(await signed(mock.url, usd(id)), id)
        const order = await dev<{ createdAt: string }>(mock.url, "GET", `/dev/orders/${orderSn}`)
        made.push({ orderSn, createdAt: order.json.data!.createdAt })
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
      for (const { orderSn, createdAt } of made) {
        expect(orderSn).toMatch(/^PC\d{29}$/)
        expect(orderSn.slice(2, 19)).toBe(createdAt.replace(/\D/g, ""))
      }
      expect([...made].map((o) => o.orderSn).sort()).toEqual(made.map((o) => o.orderSn))
      expect(new Set(made.map((o) => o.orderSn.slice(19))).size).toBe(3)
    })

    it("works through the shared test helper too (createOrder)", async () => {
      const id = orderId()
      const answer = await createOrder(mock.url, usd(id))
      expect(answer.status).toBe(200)
      expect(answer.json.code).toBe("SUCCESS")
      expect(answer.headers.get("x-request-id")).toBeTruthy()
    })

    it("gives every response its own X-Request-Id", async () => {
      const a = await signed(mock.url, usd(orderId()))
      const b = await signed(mock.url, "not json")
      expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"))
    })

    it("accepts a Unicode orderId, signed as UTF-8, and echoes it", async () => {
      const id = `订单-ü-1003-${randomUUID().slice(0, 4)}`
      const body = usd(id)
      // The body bytes are UTF-8 and the signature covers those bytes.
      expect(encoder.encode(body).length).toBeGreaterThan(body.length)
      const result = expectCreated(await signed(mock.url, body), id)
      const order = await dev<{ outerOrder: string }>(mock.url, "GET", `/dev/orders/${result.orderSn}`)
      expect(order.json.data?.outerOrder).toBe(id)
    })

    it("accepts Content-Type application/json with a charset parameter", async () => {
      const id = orderId()
      expectCreated(await signed(mock.url, usd(id), { contentType: "application/json; charset=utf-8" }), id)
    })

    it("accepts a timestamp about 4 minutes behind or ahead of the server clock", async () => {
      const behind = orderId()
      expectCreated(await signed(mock.url, usd(behind), { timestamp: Date.now() - 4 * MINUTE }), behind)
      const ahead = orderId()
      expectCreated(await signed(mock.url, usd(ahead), { timestamp: Date.now() + 4 * MINUTE }), ahead)
    })
  })

  describe("signError 401: headers", () => {
    const body = () => usd(orderId())

    it.each([
      [Headers.RequestHeaders.appKey],
      [Headers.RequestHeaders.timestamp],
      [Headers.RequestHeaders.keyVersion],
      [Headers.RequestHeaders.signature]
    ])("refuses a request without %s", async (header) => {
      const answer = await signed(mock.url, body(), { omit: [header] })
      expectSignError(answer, new RegExp(`missing header ${header}`))
    })

    it.each([
      ["X-R-AK", "not-a-uuid", /malformed header X-R-AK/],
      ["X-R-AK", "7e57c0de00004000800000000000000z", /malformed header X-R-AK/],
      ["X-R-TS", "abc", /malformed header X-R-TS/],
      ["X-R-TS", "1.7e12", /malformed header X-R-TS/],
      ["X-R-TS", "-1700000000000", /malformed header X-R-TS/],
      ["X-R-TS", "99999999999999999999", /malformed header X-R-TS/],
      ["X-R-KEY-VERSION", "0", /malformed header X-R-KEY-VERSION/],
      ["X-R-KEY-VERSION", "v1", /malformed header X-R-KEY-VERSION/],
      ["X-R-KEY-VERSION", "1.0", /malformed header X-R-KEY-VERSION/],
      ["X-R-Signature", "!!!not base64!!!", /malformed header X-R-Signature/],
      ["X-R-Signature", "abc", /malformed header X-R-Signature/],
      ["X-R-Signature", "ab-_cd==", /malformed header X-R-Signature: .*URL-safe/]
    ])("refuses a malformed %s (%s)", async (header, value, cause) => {
      const answer = await signed(mock.url, body(), { headers: { [header]: value } })
      expectSignError(answer, cause)
    })

    it("finds the merchant whatever the case of X-R-AK, and checks the signature over X-R-AK as sent", async () => {
      const upper = TEST_MERCHANT_APP_KEY.toUpperCase()
      const id = orderId()
      // Signed over the upper-case appKey that is sent: valid, and the same merchant (same order).
      const first = expectCreated(await signed(mock.url, usd(id), { appKey: upper }), id)
      const again = expectCreated(await signed(mock.url, usd(id)), id)
      expect(again.orderSn).toBe(first.orderSn)
      // Signed over the stored lower-case form while X-R-AK says upper case: not what was sent.
      const timestamp = Date.now()
      const body = usd(orderId())
      const stringToSign = Canonical.requestStringToSign({
        method: "POST",
        path: Wire.CREATE_ORDER_PATH,
        appKey: TEST_MERCHANT_APP_KEY,
        timestamp,
        body
      })
      expectSignError(
        await signed(mock.url, body, { appKey: upper, timestamp, stringToSign }),
        /the signature does not match the request/
      )
    })

    it("refuses an unknown appKey", async () => {
      const appKey = randomUUID()
      const answer = await signed(mock.url, body(), { appKey })
      expectSignError(answer, new RegExp(`unknown appKey ${appKey}`))
    })

    it.each([
      ["behind", -6 * MINUTE],
      ["ahead of", 6 * MINUTE]
    ])("refuses a timestamp 6 minutes %s the server clock", async (direction, skew) => {
      const answer = await signed(mock.url, body(), { timestamp: Date.now() + skew })
      const msg = expectSignError(answer, /timestamp outside the 5 minute window/)
      expect(msg).toContain(direction)
    })

    it("refuses a timestamp in seconds instead of milliseconds", async () => {
      const answer = await signed(mock.url, body(), { timestamp: Math.floor(Date.now() / 1000) })
      expectSignError(answer, /timestamp outside the 5 minute window/)
    })

    it("refuses an unknown key version", async () => {
      const answer = await signed(mock.url, body(), { keyVersion: 7 })
      expectSignError(answer, /key version 7 is unknown/)
    })
  })

  describe("signError 401: disabled key version", () => {
    it("refuses a disabled version and accepts the newer one", async () => {
      const v1 = await KeyPair.generate(2048)
      const v2 = await KeyPair.generate(2048)
      const created = await dev<{ appKey: string; keyVersion: number }>(mock.url, "POST", "/dev/merchants", {
        publicKeyPem: v1.publicKeyPem
      })
      expect(created.json.code).toBe("SUCCESS")
      const appKey = created.json.data!.appKey
      const signer1 = await NodeCrypto.importPrivateKey(v1.privateKeyPem)
      const signer2 = await NodeCrypto.importPrivateKey(v2.privateKeyPem)

      const before = orderId()
      expectCreated(await signed(mock.url, usd(before), { appKey, signer: signer1, keyVersion: 1 }), before)

      const uploaded = await dev<{ keyVersion: number }>(mock.url, "POST", `/dev/merchants/${appKey}/keys`, {
        publicKeyPem: v2.publicKeyPem
      })
      expect(uploaded.json.data).toEqual({ keyVersion: 2 })
      const disabled = await dev(mock.url, "POST", `/dev/merchants/${appKey}/keys/1/disable`)
      expect(disabled.json.code).toBe("SUCCESS")

      const refused = await signed(mock.url, usd(orderId()), { appKey, signer: signer1, keyVersion: 1 })
      expectSignError(refused, /key version 1 is disabled/)
      const after = orderId()
      expectCreated(await signed(mock.url, usd(after), { appKey, signer: signer2, keyVersion: 2 }), after)
      // v2's signature under the v1 label is refused too: the version selects the key.
      expectSignError(await signed(mock.url, usd(orderId()), { appKey, signer: signer2, keyVersion: 1 }), /disabled/)
    })
  })

  describe("signError 401: signature not valid", () => {
    const notMatching = /the signature does not match the request/

    it("refuses a signature made with another key", async () => {
      expectSignError(await signed(mock.url, usd(orderId()), { signer: strangerSigner }), notMatching)
    })

    it("refuses a body with an extra space added after signing", async () => {
      const compact = usd(orderId())
      const spaced = compact.replace(`"amount":`, `"amount": `)
      expect(spaced).not.toBe(compact)
      expectSignError(await signed(mock.url, spaced, { signedBody: compact }), notMatching)
    })

    it("refuses a body whose fields were reordered after signing", async () => {
      const id = orderId()
      const signedBody = orderBody({ orderId: id, amount: "10.00", currency: "USD" })
      const sent = orderBody({ amount: "10.00", currency: "USD", orderId: id })
      expectSignError(await signed(mock.url, sent, { signedBody }), notMatching)
    })

    it("refuses a body with a trailing newline added after signing", async () => {
      const compact = usd(orderId())
      expectSignError(await signed(mock.url, `${compact}\n`, { signedBody: compact }), notMatching)
    })

    it("refuses a body pretty-printed after signing", async () => {
      const id = orderId()
      const fields = { orderId: id, amount: "10.00", currency: "USD" }
      const answer = await signed(mock.url, JSON.stringify(fields, null, 2), { signedBody: JSON.stringify(fields) })
      expectSignError(answer, notMatching)
    })

    it("refuses a signature over another timestamp than the one sent", async () => {
      const body = usd(orderId())
      const now = Date.now()
      const stringToSign = Canonical.requestStringToSign({
        method: "POST",
        path: Wire.CREATE_ORDER_PATH,
        appKey: TEST_MERCHANT_APP_KEY,
        timestamp: now - 1000,
        body
      })
      expectSignError(await signed(mock.url, body, { timestamp: now, stringToSign }), notMatching)
    })

    it("refuses a URL-encoded signature", async () => {
      const body = usd(orderId())
      const timestamp = Date.now()
      const raw = await merchantSigner.sign(
        Canonical.requestStringToSign({
          method: "POST",
          path: Wire.CREATE_ORDER_PATH,
          appKey: TEST_MERCHANT_APP_KEY,
          timestamp,
          body
        })
      )
      const encoded = encodeURIComponent(raw)
      expect(encoded).not.toBe(raw)
      const answer = await signed(mock.url, body, { timestamp, signature: encoded })
      expectSignError(answer, /malformed header X-R-Signature: .*URL-encoded/)
    })

    it("refuses a signature over the callback form (no method and path)", async () => {
      const body = usd(orderId())
      const timestamp = Date.now()
      const stringToSign = Canonical.callbackStringToSign({ appKey: TEST_MERCHANT_APP_KEY, timestamp, body })
      expectSignError(await signed(mock.url, body, { timestamp, stringToSign }), notMatching)
    })

    it("refuses a signature over a lower-case method", async () => {
      const body = usd(orderId())
      const timestamp = Date.now()
      const stringToSign = Canonical.requestStringToSign({
        method: "post",
        path: Wire.CREATE_ORDER_PATH,
        appKey: TEST_MERCHANT_APP_KEY,
        timestamp,
        body
      })
      expectSignError(await signed(mock.url, body, { timestamp, stringToSign }), notMatching)
    })

    it("refuses well-formed Base64 that is not a signature", async () => {
      expectSignError(await signed(mock.url, usd(orderId()), { signature: "AAAA" }), notMatching)
    })

    it("checks the signature before the body: a bad body with a bad signature is a signError", async () => {
      expectSignError(await signed(mock.url, "not json", { signer: strangerSigner }), notMatching)
    })

    it("covers unknown extra fields: they are ignored, but still signed", async () => {
      const id = orderId()
      const withExtra = orderBody({ orderId: id, amount: "10.00", currency: "USD", note: "gift", meta: { a: [1] } })
      expectCreated(await signed(mock.url, withExtra), id)
      const withoutExtra = usd(orderId())
      const tampered = `${withoutExtra.slice(0, -1)},"note":"added after signing"}`
      expectSignError(await signed(mock.url, tampered, { signedBody: withoutExtra }), notMatching)
    })
  })

  describe("paramError 400", () => {
    it.each([
      ["not JSON", "this is not json", /JSON/],
      ["truncated JSON", '{"orderId":"M-1"', /JSON/],
      ["a JSON array", '[{"orderId":"M-1","amount":"10.00","currency":"USD"}]', /JSON object/],
      ["a JSON string", '"M-1"', /JSON object/],
      ["JSON null", "null", /JSON object/]
    ])("refuses a body that is %s", async (_, body, msg) => {
      const { msg: text } = expectEnvelope(await signed(mock.url, body), 400, "paramError")
      expect(text).toMatch(/^body\b/)
      expect(text).toMatch(msg)
    })

    it("refuses an empty body", async () => {
      expectEnvelope(await signed(mock.url, ""), 400, "paramError")
    })

    it.each([
      ["orderId", { amount: "10.00", currency: "USD" }],
      ["amount", { orderId: "M-missing-amount", currency: "USD" }],
      ["currency", { orderId: "M-missing-currency", amount: "10.00" }]
    ])("refuses a body without %s", async (field, fields) => {
      const msg = expectParamError(await signed(mock.url, orderBody(fields)), field)
      expect(msg).toMatch(/missing/)
    })

    it.each([
      ["empty", ""],
      ["65 characters", "x".repeat(65)],
      ["with a control character", "M-\u0001-1"],
      ["with a line feed", "M-\n-1"],
      ["with DEL", "M-\u007f-1"],
      ["a number", 1001],
      ["null", null]
    ])("refuses an orderId that is %s", async (_, id) => {
      expectParamError(await signed(mock.url, orderBody({ orderId: id, amount: "10.00", currency: "USD" })), "orderId")
    })

    it("accepts an orderId of exactly 64 characters, counted as code points", async () => {
      const ascii = `${orderId("L")}-`.padEnd(64, "x")
      expectCreated(await signed(mock.url, usd(ascii)), ascii)
      const emoji = "😀".repeat(63) + String(sequence++ % 10)
      expect([...emoji]).toHaveLength(64)
      expectCreated(await signed(mock.url, usd(emoji)), emoji)
    })

    it.each([
      ["negative", "-10.00", "USD"],
      ["negative, as a number", -10, "USD"],
      ["zero", "0.00", "USD"],
      ["zero, as a number", 0, "USD"],
      ["with too many decimals for USD", "10.001", "USD"],
      ["with decimals in JPY", "100.5", "JPY"],
      ["with 4 decimals in KWD", "1.2345", "KWD"],
      ["with 13 integer digits", "1234567890123.00", "USD"],
      ["in exponent notation", "1e3", "USD"],
      ["a number in exponent notation", 1e21, "USD"],
      ["a float with rounding noise", 0.1 + 0.2, "USD"],
      ["with a leading plus", "+10.00", "USD"],
      ["with whitespace", " 10.00", "USD"],
      ["with a leading zero", "010.00", "USD"],
      ["with a bare dot", "10.", "USD"],
      ["not a number", "ten", "USD"],
      ["a boolean", true, "USD"],
      ["null", null, "USD"],
      ["an object", { value: "10.00" }, "USD"]
    ])("refuses an amount that is %s", async (_, amount, currency) => {
      expectParamError(await signed(mock.url, orderBody({ orderId: orderId(), amount, currency })), "amount")
    })

    it.each([
      ["with more decimals than a double keeps", "99999999999.9999999", "USD", /has 7 decimals/],
      ["0.30000000000000001", "0.30000000000000001", "USD", /has 17 decimals/],
      ["with a trailing zero past USD's decimals", "10.500", "USD", /has 3 decimals/],
      ["in exponent notation", "1e2", "USD", /exponent/],
      ["in exponent notation with a fraction", "1.5E+1", "USD", /exponent/],
      ["with a decimal point in JPY", "100.0", "JPY", /has 1 decimals/],
      ["a negative zero", "-0", "USD", /not positive/],
      ["zero with decimals", "0.00", "USD", /not positive/]
    ])("refuses a JSON-number amount %s, as written (%s %s)", async (_, raw, currency, cause) => {
      // Raw text: JSON.stringify would already round the number the way JSON.parse does.
      const body = `{"orderId":"${orderId()}","amount":${raw},"currency":"${currency}"}`
      const msg = expectParamError(await signed(mock.url, body), "amount")
      expect(msg).toMatch(cause)
      expect(msg).toContain(raw)
    })

    it.each([
      ["10.5", "USD", "10.50"],
      ["10.50", "USD", "10.50"],
      ["0.01", "USD", "0.01"],
      ["123456789012.99", "USD", "123456789012.99"],
      ["1.5", "KWD", "1.500"],
      ["100", "JPY", "100"]
    ])("accepts the JSON-number amount %s %s as written and stores %s", async (raw, currency, stored) => {
      const id = orderId()
      const body = `{"orderId":"${id}","amount":${raw},"currency":"${currency}"}`
      const result = expectCreated(await signed(mock.url, body), id)
      const order = await dev<{ amount: string }>(mock.url, "GET", `/dev/orders/${result.orderSn}`)
      expect(order.json.data?.amount).toBe(stored)
    })

    it.each([
      ["orderId", '{"orderId":"o","amount":"1.00","currency":"USD","orderId":"p"}'],
      ["amount", '{"orderId":"o","amount":"1.00","currency":"USD","amount":"100.00"}'],
      ["amount", '{"orderId":"o","amount":1,"amount":2,"currency":"USD"}'],
      ["note", '{"orderId":"o","note":{"a":1},"amount":"1.00","currency":"USD","note":[]}']
    ])('refuses a body with the key "%s" twice, though both copies are signed', async (key, body) => {
      const { msg } = expectEnvelope(await signed(mock.url, body), 400, "paramError")
      expect(msg).toBe(`body: duplicate key "${key}"`)
    })

    it("judges duplicates at the top level only, and keys by their decoded text", async () => {
      const id = orderId()
      const nested = `{"orderId":"${id}","amount":"1.00","currency":"USD","meta":{"a":1,"a":2}}`
      expectCreated(await signed(mock.url, nested), id)
      const escaped = '{"orderId":"o","amount":"1.00","currency":"USD","\\u006frderId":"p"}'
      const { msg } = expectEnvelope(await signed(mock.url, escaped), 400, "paramError")
      expect(msg).toBe('body: duplicate key "orderId"')
    })

    it("refuses an orderId with a lone surrogate: it has no UTF-8 form to sign", async () => {
      const msg = expectParamError(
        await signed(mock.url, '{"orderId":"\\ud800","amount":"1.00","currency":"USD"}'),
        "orderId"
      )
      expect(msg).toMatch(/surrogate/)
    })

    it.each([
      ["lower case", "usd"],
      ["unknown", "XYZ"],
      ["withdrawn", "HRK"],
      ["too long", "USDD"],
      ["a number", 840],
      ["empty", ""]
    ])("refuses a currency that is %s", async (_, currency) => {
      expectParamError(await signed(mock.url, orderBody({ orderId: orderId(), amount: "10.00", currency })), "currency")
    })

    it.each([
      ["KWD with 3 decimals", "1.234", "KWD", "1.234"],
      ["KWD with 1 decimal", "1.5", "KWD", "1.500"],
      ["JPY without decimals", "100", "JPY", "100"],
      ["JPY as a number", 100, "JPY", "100"],
      ["USD without decimals", "10", "USD", "10.00"],
      ["USD as the number 10.5", 10.5, "USD", "10.50"],
      ["USD with 12 integer digits", "123456789012.99", "USD", "123456789012.99"],
      ["USD of one cent", "0.01", "USD", "0.01"]
    ])("accepts %s and stores it with the currency's decimals", async (_, amount, currency, stored) => {
      const id = orderId()
      const result = expectCreated(await signed(mock.url, orderBody({ orderId: id, amount, currency })), id)
      const order = await dev<{ amount: string; currency: string; status: string }>(
        mock.url,
        "GET",
        `/dev/orders/${result.orderSn}`
      )
      expect(order.json.data).toMatchObject({ amount: stored, currency, status: "CREATED" })
    })
  })

  describe("duplicateOrder 409 and idempotency", () => {
    it("returns the first order for the same orderId, amount and currency", async () => {
      const id = orderId()
      const first = expectCreated(await signed(mock.url, usd(id, "10.50")), id)
      const again = expectCreated(await signed(mock.url, usd(id, "10.50")), id)
      expect(again).toEqual(first)
    })

    it('compares amounts by value: 10.5, "10.5" and "10.50" are the same amount', async () => {
      const id = orderId()
      const first = expectCreated(await signed(mock.url, usd(id, 10.5)), id)
      expect(expectCreated(await signed(mock.url, usd(id, "10.5")), id).orderSn).toBe(first.orderSn)
      expect(expectCreated(await signed(mock.url, usd(id, "10.50")), id).orderSn).toBe(first.orderSn)
    })

    it("refuses the same orderId with a different amount", async () => {
      const id = orderId()
      const first = expectCreated(await signed(mock.url, usd(id, "10.00")), id)
      const { msg } = expectEnvelope(await signed(mock.url, usd(id, "11.00")), 409, "duplicateOrder")
      expect(msg).toContain(id)
      // The first order is untouched.
      const order = await dev<{ amount: string }>(mock.url, "GET", `/dev/orders/${first.orderSn}`)
      expect(order.json.data?.amount).toBe("10.00")
    })

    it("refuses the same orderId with a different currency", async () => {
      const id = orderId()
      expectCreated(await signed(mock.url, usd(id, "10.00")), id)
      const answer = await signed(mock.url, orderBody({ orderId: id, amount: "10.00", currency: "EUR" }))
      expectEnvelope(answer, 409, "duplicateOrder")
    })

    it("keeps orderIds per appKey: another merchant may use the same orderId", async () => {
      const pair = await KeyPair.generate(2048)
      const created = await dev<{ appKey: string }>(mock.url, "POST", "/dev/merchants", {
        publicKeyPem: pair.publicKeyPem
      })
      const appKey = created.json.data!.appKey
      const signer = await NodeCrypto.importPrivateKey(pair.privateKeyPem)
      const id = orderId()
      const mine = expectCreated(await signed(mock.url, usd(id, "10.00")), id)
      const theirs = expectCreated(await signed(mock.url, usd(id, "99.00"), { appKey, signer }), id)
      expect(theirs.orderSn).not.toBe(mine.orderSn)
    })
  })

  describe("unsupportedMediaType 415", () => {
    it.each([
      ["text/plain", "text/plain"],
      ["text/plain with charset", "text/plain;charset=UTF-8"],
      ["form", "application/x-www-form-urlencoded"],
      ["application/jsonp", "application/jsonp"]
    ])("refuses Content-Type %s", async (_, contentType) => {
      const { msg } = expectEnvelope(
        await signed(mock.url, usd(orderId()), { contentType }),
        415,
        "unsupportedMediaType"
      )
      expect(msg).toContain("application/json")
    })

    it("refuses a body without Content-Type", async () => {
      const answer = await signed(mock.url, usd(orderId()), { contentType: null })
      const { msg } = expectEnvelope(answer, 415, "unsupportedMediaType")
      expect(msg).toMatch(/missing/i)
    })
  })

  describe("payloadTooLarge 413 (default limit 64 KiB)", () => {
    const padded = (bytes: number) => {
      const head = usd(orderId()).slice(0, -1) + ',"pad":"'
      const tail = '"}'
      return head + "x".repeat(bytes - head.length - tail.length) + tail
    }

    it("refuses a body over 64 KiB, with Content-Length", async () => {
      const body = padded(64 * 1024 + 1)
      expect(encoder.encode(body).length).toBe(64 * 1024 + 1)
      const { msg } = expectEnvelope(await signed(mock.url, body), 413, "payloadTooLarge")
      expect(msg).toContain("65536")
    })

    it("refuses a much larger body", async () => {
      expectEnvelope(await signed(mock.url, padded(1024 * 1024)), 413, "payloadTooLarge")
    })

    it("refuses a chunked body (no Content-Length) over 64 KiB with the envelope", async () => {
      const body = padded(80 * 1024)
      const port = Number(new URL(mock.url).port)
      const answer = await new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
        (resolve, reject) => {
          const req = httpRequest(
            {
              host: "127.0.0.1",
              port,
              method: "POST",
              path: Wire.CREATE_ORDER_PATH,
              headers: { "content-type": "application/json", "transfer-encoding": "chunked" }
            },
            (res) => {
              let text = ""
              res.setEncoding("utf8")
              res.on("data", (chunk: string) => {
                text += chunk
              })
              res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
            }
          )
          req.on("error", reject)
          // Two chunks, so the limit is crossed while the body is still arriving.
          req.write(body.slice(0, 40 * 1024))
          setTimeout(() => req.end(body.slice(40 * 1024)), 20)
        }
      )
      expect(answer.status).toBe(413)
      expect(answer.headers["content-type"]).toMatch(/^application\/json/)
      expect(answer.headers["x-request-id"]).toBeTruthy()
      expect(envelopeOf(JSON.parse(answer.text)).code).toBe("payloadTooLarge")
    })

    it("accepts a signed body of exactly 64 KiB", async () => {
      const body = padded(64 * 1024)
      const id = JSON.parse(body).orderId as string
      expectCreated(await signed(mock.url, body), id)
    })
  })

  describe("payloadTooLarge 413 with bodyLimitBytes 1024", () => {
    let small: Mock
    beforeAll(async () => {
      small = await startMock({ environment, bodyLimitBytes: 1024 })
    })
    afterAll(async () => {
      await small?.close()
    })

    const padded = (bytes: number) => {
      const head = usd(orderId()).slice(0, -1) + ',"pad":"'
      const tail = '"}'
      return head + "x".repeat(bytes - head.length - tail.length) + tail
    }

    it("accepts 1024 bytes and refuses 1025", async () => {
      const exact = padded(1024)
      expectCreated(await signed(small.url, exact), JSON.parse(exact).orderId as string)
      const { msg } = expectEnvelope(await signed(small.url, padded(1025)), 413, "payloadTooLarge")
      expect(msg).toContain("1024")
    })

    it.each([
      ["/dev/platform-keys/rotate"],
      ["/dev/orders/PC0/pay"],
      ["/dev/orders/PC0/fail"],
      ["/dev/orders/PC0/expire"],
      [`/dev/merchants/${TEST_MERCHANT_APP_KEY}/keys/1/disable`],
      ["/dev/callbacks/dlv_x/resend"],
      ["/h5/checkout/PC0/pay"],
      ["/h5/checkout/PC0/fail"]
    ])("refuses a body over the limit on POST %s, which takes none, before it acts", async (path) => {
      const answer = await send(`${small.url}${path}`, { method: "POST", body: "x".repeat(1025) })
      expectEnvelope(answer, 413, "payloadTooLarge")
    })

    it("rotates nothing on a refused body, and ignores a body within the limit", async () => {
      const keys = async () => (await dev<ReadonlyArray<unknown>>(small.url, "GET", "/dev/platform-keys")).json.data
      const before = await keys()
      const refused = await send(`${small.url}/dev/platform-keys/rotate`, { method: "POST", body: "x".repeat(5000) })
      expectEnvelope(refused, 413, "payloadTooLarge")
      expect(await keys()).toEqual(before)
      const rotated = await send(`${small.url}/dev/platform-keys/rotate`, { method: "POST", body: "x".repeat(1024) })
      expectEnvelope(rotated, 200, "SUCCESS")
      expect(await keys()).toHaveLength(before!.length + 1)
    })

    it("applies the limit to /dev bodies too", async () => {
      const answer = await send(`${small.url}/dev/merchants`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ publicKeyPem: "x".repeat(2000) })
      })
      expectEnvelope(answer, 413, "payloadTooLarge")
    })
  })

  describe("notFound 404 and methodNotAllowed 405", () => {
    it.each([
      ["GET", "/index.html"],
      ["GET", "/nope"],
      ["POST", "/openapi/v2/order/create/"],
      ["POST", "/openapi/v1/order/create"],
      ["POST", "/OPENAPI/V2/ORDER/CREATE"],
      ["GET", "/dev/order"],
      ["DELETE", "/dev/nothing/here"]
    ])("answers %s %s with the notFound envelope", async (method, path) => {
      const { msg } = expectEnvelope(await send(`${mock.url}${path}`, { method }), 404, "notFound")
      expect(msg).toContain(path)
    })

    it.each([["GET"], ["PUT"], ["DELETE"], ["PATCH"]])(
      "answers %s on the create-order path with methodNotAllowed and Allow: POST",
      async (method) => {
        const answer = await send(`${mock.url}${Wire.CREATE_ORDER_PATH}`, { method })
        expectEnvelope(answer, 405, "methodNotAllowed")
        expect(answer.headers.get("allow")).toBe("POST")
      }
    )

    it("lists every allowed method of a path in Allow", async () => {
      const answer = await send(`${mock.url}/dev/merchants/${TEST_MERCHANT_APP_KEY}`, { method: "DELETE" })
      expectEnvelope(answer, 405, "methodNotAllowed")
      expect(answer.headers.get("allow")).toBe("GET")
    })
  })

  describe("rateLimited 429 with rateLimitPerMinute 3", () => {
    let limited: Mock
    beforeAll(async () => {
      limited = await startMock({ environment, rateLimitPerMinute: 3 })
    })
    afterAll(async () => {
      await limited?.close()
    })

    it("lets 3 requests per minute through, then refuses with Retry-After", async () => {
      // Seven requests span at most one minute boundary, so at least one window sees a fourth.
      const answers: Array<Answer> = []
      for (let i = 0; i < 7; i++) answers.push(await signed(limited.url, usd(orderId())))
      for (const answer of answers.slice(0, 3)) expectEnvelope(answer, 200, "SUCCESS")
      const refused = answers.filter((answer) => answer.status === 429)
      expect(refused.length).toBeGreaterThanOrEqual(1)
      for (const answer of refused) {
        expectEnvelope(answer, 429, "rateLimited")
        const retryAfter = Number(answer.headers.get("retry-after"))
        expect(Number.isInteger(retryAfter)).toBe(true)
        expect(retryAfter).toBeGreaterThanOrEqual(1)
        expect(retryAfter).toBeLessThanOrEqual(60)
      }
      for (const answer of answers) expect([200, 429]).toContain(answer.status)
    })

    it("counts per appKey: another merchant is not limited by the first one's requests", async () => {
      const pair = await KeyPair.generate(2048)
      const created = await dev<{ appKey: string }>(limited.url, "POST", "/dev/merchants", {
        publicKeyPem: pair.publicKeyPem
      })
      const appKey = created.json.data!.appKey
      const signer = await NodeCrypto.importPrivateKey(pair.privateKeyPem)
      const id = orderId()
      expectCreated(await signed(limited.url, usd(id), { appKey, signer }), id)
    })
  })

  describe("malformed inputs never give 500", () => {
    const inputs: ReadonlyArray<readonly [string, string | Uint8Array<ArrayBuffer>]> = [
      ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
      ["a UTF-8 BOM before the JSON", `\ufeff${usd("M-bom")}`],
      ["deeply nested arrays", "[".repeat(20_000) + "]".repeat(20_000)],
      ["deeply nested objects", '{"a":'.repeat(5_000) + "1" + "}".repeat(5_000)],
      ["a huge number amount", orderBody({ orderId: "M-huge", amount: 1e308, currency: "USD" })],
      ["a huge integer amount", '{"orderId":"M-huge2","amount":123456789012345678901234567890,"currency":"USD"}'],
      ["a __proto__ key", '{"__proto__":{"orderId":"x"},"amount":"1.00","currency":"USD"}'],
      [
        "a huge JSON-number amount with many decimals",
        `{"orderId":"M-d","amount":1.${"5".repeat(5_000)},"currency":"USD"}`
      ],
      ["a key with escapes", '{"\\u0000\\"\\\\":1,"orderId":"M-k","amount":"1.00","currency":"USD"}'],
      ["NUL bytes", '{"orderId":"a\u0000b","amount":"1.00","currency":"USD"}'],
      ["only whitespace", "   "],
      ["an empty object", "{}"]
    ]

    it.each(inputs)("answers an envelope below 500 for %s", async (_, body) => {
      const answer = await signed(mock.url, body)
      expect(answer.status).toBeLessThan(500)
      expect(answer.status).toBeGreaterThanOrEqual(200)
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
      const envelope = envelopeOf(answer.json)
      expect(envelope.code).not.toBe("internalError")
    })

    it("answers an envelope below 500 for strange header values", async () => {
      const cases: ReadonlyArray<Record<string, string>> = [
        { "X-R-TS": "9007199254740993" },
        { "X-R-TS": "0" },
        { "X-R-KEY-VERSION": "9007199254740991" },
        { "X-R-KEY-VERSION": "99999999999999999999" },
        { "X-R-AK": "00000000-0000-0000-0000-000000000000" },
        { "X-R-Signature": "A".repeat(10_000) },
        { "X-R-Signature": "====" }
      ]
      for (const headers of cases) {
        const answer = await signed(mock.url, usd(orderId()), { headers })
        expect({ headers, status: answer.status }).toMatchObject({ status: 401 })
        expect(envelopeOf(answer.json).code).toBe("signError")
      }
    })
  })
})

// Requests Node's HTTP parser refuses before any route runs. The contract asks for the envelope and
// an X-Request-Id on every response, so the server answers these itself rather than leave Node's
// bare answer (see src/server/ClientError.ts).
describe("malformed HTTP framing still gets the envelope", () => {
  let mock: Mock
  beforeAll(async () => {
    mock = await startMock({ environment: "production" })
  })
  afterAll(async () => {
    await mock?.close()
  })

  const rawExchange = (text: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(mock.url).port), "127.0.0.1")
      let data = ""
      socket.setEncoding("utf8")
      socket.on("data", (chunk: string) => {
        data += chunk
      })
      socket.on("close", () => resolve(data))
      socket.on("error", () => resolve(data))
      socket.write(text)
    })

  const expectRawEnvelope = (raw: string, status: number) => {
    const [head = "", body = ""] = raw.split("\r\n\r\n")
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
    expect(head).toMatch(/\r\ncontent-type: application\/json/i)
    expect(head).toMatch(/\r\nx-request-id: \S+/i)
    const envelope = envelopeOf(JSON.parse(body))
    expect(envelope.data).toBeNull()
    expect(typeof envelope.msg).toBe("string")
  }

  it("answers a header section over the server's limit with paramError and 431 (CONTRACT.md)", async () => {
    const raw = await rawExchange(
      `POST ${Wire.CREATE_ORDER_PATH} HTTP/1.1\r\nHost: x\r\nX-Filler: ${"a".repeat(20_000)}\r\n\r\n`
    )
    expectRawEnvelope(raw, 431)
    expect(JSON.parse(raw.split("\r\n\r\n")[1]!)).toMatchObject({ code: "paramError" })
  })

  it("answers a malformed header line (400) with an envelope", async () => {
    const raw = await rawExchange(`POST ${Wire.CREATE_ORDER_PATH} HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n`)
    expectRawEnvelope(raw, 400)
  })
})
