// The developer menu (CONTRACT.md "The developer menu", mock only, under /dev/) over real HTTP, with
// real RSA keys, and the signed callbacks its order moves send to a real receiver on 127.0.0.1.
import { Canonical, type Crypto, Environment, Headers } from "@pc/core"
import * as Wire from "@pc/core/Wire"
import { KeyPair, NodeCrypto } from "@pc/crypto-node"
import { generateKeyPairSync, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type * as S from "../src/api/Schemas.js"
import { TEST_MERCHANT_APP_KEY } from "../src/main/TestMerchant.js"
import { dev, testMerchantSigner } from "./support/mock.js"
import { type ReceivedRequest, type Receiver, startReceiver, until } from "@pc/test-support"
import { type Mock, startMock } from "@pc/test-support/mock"

// The answers' types come from the mock's own Schemas (the ones its typed client decodes with);
// the assertions below still read the raw envelopes, since the wire bytes are the contract.
type MerchantView = typeof S.Merchant.Type
type PlatformKeyView = typeof S.PlatformKey.Type
type OrderView = typeof S.Order.Type
type DeliveryView = typeof S.Delivery.Type

interface Answer<T> {
  readonly status: number
  readonly headers: globalThis.Headers
  readonly text: string
  readonly code: string
  readonly msg: string | null
  readonly data: T | null
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Calls a route and checks what every answer shares (JSON envelope, X-Request-Id); `T` is what the
 * test expects `data` to be, checked by the assertions that follow.
 */
const call = async <T>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json"
): Promise<Answer<T>> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : {
          headers: { "content-type": contentType },
          body: typeof body === "string" ? new TextEncoder().encode(body) : JSON.stringify(body)
        })
  })
  const text = await response.text()
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  expect(response.headers.get("x-request-id")).toBeTruthy()
  const json: unknown = JSON.parse(text)
  if (!isRecord(json)) throw new Error(`not an envelope: ${text}`)
  expect(Object.keys(json).sort()).toEqual(["code", "data", "msg"])
  const { code, msg, data } = json
  if (typeof code !== "string" || (msg !== null && typeof msg !== "string")) throw new Error(`not an envelope: ${text}`)
  if (code === "SUCCESS") expect(msg).toBeNull()
  else expect(data).toBeNull()
  return { status: response.status, headers: response.headers, text, code, msg, data: data as T | null }
}

const expectOk = <T>(answer: Answer<T>): T => {
  expect({ status: answer.status, code: answer.code, msg: answer.msg }).toEqual({
    status: 200,
    code: "SUCCESS",
    msg: null
  })
  expect(answer.data).not.toBeNull()
  return answer.data!
}

const expectError = (answer: Answer<unknown>, status: number, code: string, msg?: RegExp) => {
  expect({ status: answer.status, code: answer.code }).toEqual({ status, code })
  expect(typeof answer.msg).toBe("string")
  if (msg !== undefined) expect(answer.msg).toMatch(msg)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

/** Signs and sends a create-order request; production checks every part. */
const createOrder = async (
  baseUrl: string,
  options: {
    readonly appKey: string
    readonly signer: Crypto.Signer
    readonly keyVersion: number
    readonly body: string
  }
): Promise<Answer<{ orderSn: string; outerOrder: string; h5Url: string }>> => {
  const timestamp = String(Date.now())
  const signature = await options.signer.sign(
    Canonical.requestStringToSign({
      method: "POST",
      path: Wire.CREATE_ORDER_PATH,
      appKey: options.appKey,
      timestamp,
      body: options.body
    })
  )
  const response = await fetch(`${baseUrl}${Wire.CREATE_ORDER_PATH}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [Headers.RequestHeaders.appKey]: options.appKey,
      [Headers.RequestHeaders.timestamp]: timestamp,
      [Headers.RequestHeaders.keyVersion]: String(options.keyVersion),
      [Headers.RequestHeaders.signature]: signature
    },
    body: options.body
  })
  const text = await response.text()
  const json: unknown = JSON.parse(text)
  if (!isRecord(json) || typeof json.code !== "string") throw new Error(`not an envelope: ${text}`)
  const msg = typeof json.msg === "string" ? json.msg : null
  return {
    status: response.status,
    headers: response.headers,
    text,
    code: json.code,
    msg,
    data: json.data as { orderSn: string; outerOrder: string; h5Url: string } | null
  }
}

let sequence = 0
const newOrderBody = (amount = "10.00", currency = "USD") =>
  JSON.stringify({ orderId: `D-${++sequence}-${randomUUID().slice(0, 8)}`, amount, currency })

const pemPair = () => KeyPair.generate(2048)

/** One pair for the tests that need a valid key but not a distinct one (key generation is slow). */
let shared: KeyPair.PemKeyPair
beforeAll(async () => {
  shared = await pemPair()
})

const header = (received: ReceivedRequest, name: string): string => {
  const value = received.headers[name.toLowerCase()]
  if (typeof value !== "string") throw new Error(`callback header ${name} missing or repeated`)
  return value
}

describe("developer menu (production)", () => {
  let mock: Mock
  beforeAll(async () => {
    mock = await startMock({ environment: "production" })
  })
  afterAll(async () => {
    await mock?.close()
  })

  describe("merchants and keys", () => {
    describe("POST /dev/merchants", () => {
      it("creates a merchant without notifyUrl: {appKey, keyVersion: 1}", async () => {
        const pair = shared
        const created = expectOk(
          await call<{ appKey: string; keyVersion: number }>(mock.url, "POST", "/dev/merchants", {
            publicKeyPem: pair.publicKeyPem
          })
        )
        expect(Object.keys(created).sort()).toEqual(["appKey", "keyVersion"])
        expect(created.appKey).toMatch(UUID)
        expect(created.keyVersion).toBe(1)
        const view = expectOk(await call<MerchantView>(mock.url, "GET", `/dev/merchants/${created.appKey}`))
        expect(view).toEqual({
          appKey: created.appKey,
          notifyUrl: null,
          keys: [{ version: 1, status: "active", uploadedAt: expect.stringMatching(ISO) }]
        })
        // The new merchant can sign right away with key version 1.
        const signer = await NodeCrypto.importPrivateKey(pair.privateKeyPem)
        const order = await createOrder(mock.url, {
          appKey: created.appKey,
          signer,
          keyVersion: 1,
          body: newOrderBody()
        })
        expectOk(order)
      })

      it("creates a merchant with notifyUrl", async () => {
        const pair = shared
        const notifyUrl = "https://merchant.example/callbacks?x=1"
        const created = expectOk(
          await call<{ appKey: string; keyVersion: number }>(mock.url, "POST", "/dev/merchants", {
            publicKeyPem: pair.publicKeyPem,
            notifyUrl
          })
        )
        const view = expectOk(await call<MerchantView>(mock.url, "GET", `/dev/merchants/${created.appKey}`))
        expect(view.notifyUrl).toBe(notifyUrl)
      })

      it.each([
        ["http://u:p@127.0.0.1:9/cb"],
        ["https://user@merchant.example/cb"],
        ["http://:secret@merchant.example/"]
      ])("refuses a notifyUrl with credentials (%s) with paramError, and makes no merchant", async (notifyUrl) => {
        const answer = await call(mock.url, "POST", "/dev/merchants", { publicKeyPem: shared.publicKeyPem, notifyUrl })
        expectError(answer, 400, "paramError", /^notifyUrl: must not contain a user name or password$/)
      })

      it("gives every merchant its own appKey", async () => {
        const pair = shared
        const a = expectOk(
          await call<{ appKey: string }>(mock.url, "POST", "/dev/merchants", { publicKeyPem: pair.publicKeyPem })
        )
        const b = expectOk(
          await call<{ appKey: string }>(mock.url, "POST", "/dev/merchants", { publicKeyPem: pair.publicKeyPem })
        )
        expect(a.appKey).not.toBe(b.appKey)
      })

      it("refuses a 1024-bit key with paramError", async () => {
        const { publicKey } = generateKeyPairSync("rsa", {
          modulusLength: 1024,
          publicKeyEncoding: { type: "spki", format: "pem" },
          privateKeyEncoding: { type: "pkcs8", format: "pem" }
        })
        const answer = await call(mock.url, "POST", "/dev/merchants", { publicKeyPem: publicKey })
        expectError(answer, 400, "paramError", /^publicKeyPem\b.*2048/)
      })

      it("accepts a PKCS#1 RSA PUBLIC KEY, and its private key signs accepted requests", async () => {
        const { publicKey, privateKey } = generateKeyPairSync("rsa", {
          modulusLength: 2048,
          publicKeyEncoding: { type: "pkcs1", format: "pem" },
          privateKeyEncoding: { type: "pkcs1", format: "pem" }
        })
        expect(publicKey).toMatch(/^-----BEGIN RSA PUBLIC KEY-----/)
        const created = expectOk(
          await call<{ appKey: string; keyVersion: number }>(mock.url, "POST", "/dev/merchants", {
            publicKeyPem: publicKey
          })
        )
        expect(created.keyVersion).toBe(1)
        const signer = await NodeCrypto.importPrivateKey(privateKey)
        expectOk(await createOrder(mock.url, { appKey: created.appKey, signer, keyVersion: 1, body: newOrderBody() }))
      })

      it.each([
        ["garbage text", "hello, I am not a key"],
        ["an empty string", ""],
        [
          "a truncated PEM",
          "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----\n"
        ],
        ["a number", 42],
        ["null", null]
      ])("refuses %s as publicKeyPem with paramError", async (_, publicKeyPem) => {
        expectError(
          await call(mock.url, "POST", "/dev/merchants", { publicKeyPem }),
          400,
          "paramError",
          /^publicKeyPem\b/
        )
      })

      it("refuses a private key uploaded as the public key", async () => {
        const pair = shared
        const answer = await call(mock.url, "POST", "/dev/merchants", { publicKeyPem: pair.privateKeyPem })
        expectError(answer, 400, "paramError", /^publicKeyPem\b/)
        expect(answer.text).not.toContain("PRIVATE KEY")
      })

      it("refuses a non-RSA (EC) public key", async () => {
        const { publicKey } = generateKeyPairSync("ec", {
          namedCurve: "P-256",
          publicKeyEncoding: { type: "spki", format: "pem" },
          privateKeyEncoding: { type: "pkcs8", format: "pem" }
        })
        expectError(
          await call(mock.url, "POST", "/dev/merchants", { publicKeyPem: publicKey }),
          400,
          "paramError",
          /^publicKeyPem\b/
        )
      })

      it("refuses a body without publicKeyPem", async () => {
        expectError(
          await call(mock.url, "POST", "/dev/merchants", { notifyUrl: "https://x.example/" }),
          400,
          "paramError",
          /publicKeyPem/
        )
      })

      it.each([
        ["not a URL", "not a url"],
        ["a relative URL", "/callbacks"],
        ["an ftp URL", "ftp://merchant.example/callbacks"],
        ["a javascript URL", "javascript:alert(1)"],
        ["a number", 42]
      ])("refuses a notifyUrl that is %s with paramError", async (_, notifyUrl) => {
        const pair = shared
        const answer = await call(mock.url, "POST", "/dev/merchants", { publicKeyPem: pair.publicKeyPem, notifyUrl })
        expectError(answer, 400, "paramError", /^notifyUrl\b/)
      })

      it("refuses a body that is not a JSON object, and a body that is not JSON", async () => {
        expectError(await call(mock.url, "POST", "/dev/merchants", "[1,2]"), 400, "paramError", /JSON object/)
        expectError(await call(mock.url, "POST", "/dev/merchants", "{"), 400, "paramError", /JSON/)
      })

      it("refuses a body that is not application/json with unsupportedMediaType", async () => {
        const pair = shared
        const answer = await call(
          mock.url,
          "POST",
          "/dev/merchants",
          JSON.stringify({ publicKeyPem: pair.publicKeyPem }),
          "text/plain"
        )
        expectError(answer, 415, "unsupportedMediaType")
      })
    })

    describe("GET /dev/merchants/{appKey}", () => {
      it("shows the test merchant with key version 1 active", async () => {
        const view = expectOk(await call<MerchantView>(mock.url, "GET", `/dev/merchants/${TEST_MERCHANT_APP_KEY}`))
        expect(view.appKey).toBe(TEST_MERCHANT_APP_KEY)
        expect(view.keys[0]).toEqual({ version: 1, status: "active", uploadedAt: expect.stringMatching(ISO) })
      })

      it("answers notFound for an unknown appKey", async () => {
        const appKey = randomUUID()
        expectError(await call(mock.url, "GET", `/dev/merchants/${appKey}`), 404, "notFound", new RegExp(appKey))
      })
    })

    describe("key uploads, versions and disabling", () => {
      let appKey: string
      let signers: Array<Crypto.Signer>
      let pairs: Array<KeyPair.PemKeyPair>

      beforeAll(async () => {
        pairs = await Promise.all([pemPair(), pemPair(), pemPair()])
        signers = await Promise.all(pairs.map((pair) => NodeCrypto.importPrivateKey(pair.privateKeyPem)))
        const created = expectOk(
          await call<{ appKey: string }>(mock.url, "POST", "/dev/merchants", { publicKeyPem: pairs[0]!.publicKeyPem })
        )
        appKey = created.appKey
      })

      it("numbers uploads by ordinal: 2, then 3", async () => {
        const second = expectOk(
          await call<{ keyVersion: number }>(mock.url, "POST", `/dev/merchants/${appKey}/keys`, {
            publicKeyPem: pairs[1]!.publicKeyPem
          })
        )
        expect(second).toEqual({ keyVersion: 2 })
        const third = expectOk(
          await call<{ keyVersion: number }>(mock.url, "POST", `/dev/merchants/${appKey}/keys`, {
            publicKeyPem: pairs[2]!.publicKeyPem
          })
        )
        expect(third).toEqual({ keyVersion: 3 })
        const view = expectOk(await call<MerchantView>(mock.url, "GET", `/dev/merchants/${appKey}`))
        expect(view.keys.map((key) => [key.version, key.status])).toEqual([
          [1, "active"],
          [2, "active"],
          [3, "active"]
        ])
        for (const key of view.keys) expect(key.uploadedAt).toMatch(ISO)
      })

      it("accepts a request signed with v2's private key and X-R-KEY-VERSION 2", async () => {
        expectOk(await createOrder(mock.url, { appKey, signer: signers[1]!, keyVersion: 2, body: newOrderBody() }))
        expectOk(await createOrder(mock.url, { appKey, signer: signers[2]!, keyVersion: 3, body: newOrderBody() }))
        // Version 1 still works: uploading a key does not retire the old one.
        expectOk(await createOrder(mock.url, { appKey, signer: signers[0]!, keyVersion: 1, body: newOrderBody() }))
      })

      it("refuses v2's signature sent as X-R-KEY-VERSION 3", async () => {
        const answer = await createOrder(mock.url, { appKey, signer: signers[1]!, keyVersion: 3, body: newOrderBody() })
        expectError(answer, 401, "signError", /^signature verification failed: /)
      })

      it("refuses a weak key upload and an upload for an unknown merchant", async () => {
        const { publicKey } = generateKeyPairSync("rsa", {
          modulusLength: 1024,
          publicKeyEncoding: { type: "spki", format: "pem" },
          privateKeyEncoding: { type: "pkcs8", format: "pem" }
        })
        expectError(
          await call(mock.url, "POST", `/dev/merchants/${appKey}/keys`, { publicKeyPem: publicKey }),
          400,
          "paramError",
          /^publicKeyPem\b/
        )
        expectError(
          await call(mock.url, "POST", `/dev/merchants/${randomUUID()}/keys`, { publicKeyPem: pairs[0]!.publicKeyPem }),
          404,
          "notFound"
        )
        // Neither attempt used up a version number.
        const view = expectOk(await call<MerchantView>(mock.url, "GET", `/dev/merchants/${appKey}`))
        expect(view.keys.map((key) => key.version)).toEqual([1, 2, 3])
      })

      it("disables a version: {version, status: disabled}; requests signed with it are refused", async () => {
        const disabled = expectOk(
          await call<{ version: number; status: string }>(mock.url, "POST", `/dev/merchants/${appKey}/keys/2/disable`)
        )
        expect(disabled).toEqual({ version: 2, status: "disabled" })
        const view = expectOk(await call<MerchantView>(mock.url, "GET", `/dev/merchants/${appKey}`))
        expect(view.keys.map((key) => [key.version, key.status])).toEqual([
          [1, "active"],
          [2, "disabled"],
          [3, "active"]
        ])
        const refused = await createOrder(mock.url, {
          appKey,
          signer: signers[1]!,
          keyVersion: 2,
          body: newOrderBody()
        })
        expectError(refused, 401, "signError", /key version 2 is disabled/)
        expectOk(await createOrder(mock.url, { appKey, signer: signers[2]!, keyVersion: 3, body: newOrderBody() }))
      })

      it("enables a disabled version again: {version, status: active}; requests signed with it are accepted", async () => {
        const enabled = expectOk(
          await call<{ version: number; status: string }>(mock.url, "POST", `/dev/merchants/${appKey}/keys/2/enable`)
        )
        expect(enabled).toEqual({ version: 2, status: "active" })
        expectOk(await createOrder(mock.url, { appKey, signer: signers[1]!, keyVersion: 2, body: newOrderBody() }))
        expectError(await call(mock.url, "POST", `/dev/merchants/${appKey}/keys/9/enable`), 404, "notFound")
        expectOk(await call(mock.url, "POST", `/dev/merchants/${appKey}/keys/2/disable`))
      })

      it("answers notFound for an unknown version or merchant", async () => {
        expectError(await call(mock.url, "POST", `/dev/merchants/${appKey}/keys/9/disable`), 404, "notFound")
        expectError(await call(mock.url, "POST", `/dev/merchants/${randomUUID()}/keys/1/disable`), 404, "notFound")
      })

      it.each([["abc"], ["0"], ["-1"], ["1.5"]])("answers paramError for version %s", async (version) => {
        expectError(
          await call(mock.url, "POST", `/dev/merchants/${appKey}/keys/${version}/disable`),
          400,
          "paramError",
          /version/
        )
      })
    })

    describe("PUT /dev/merchants/{appKey}/notify-url", () => {
      it("sets the notify URL: {appKey, notifyUrl}", async () => {
        const pair = shared
        const { appKey } = expectOk(
          await call<{ appKey: string }>(mock.url, "POST", "/dev/merchants", { publicKeyPem: pair.publicKeyPem })
        )
        const notifyUrl = "http://127.0.0.1:9/callbacks"
        const set = expectOk(
          await call<{ appKey: string; notifyUrl: string }>(mock.url, "PUT", `/dev/merchants/${appKey}/notify-url`, {
            notifyUrl
          })
        )
        expect(set).toEqual({ appKey, notifyUrl })
        const view = expectOk(await call<MerchantView>(mock.url, "GET", `/dev/merchants/${appKey}`))
        expect(view.notifyUrl).toBe(notifyUrl)
      })

      it("refuses a bad URL with paramError and an unknown merchant with notFound", async () => {
        expectError(
          await call(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, { notifyUrl: "nope" }),
          400,
          "paramError",
          /^notifyUrl\b/
        )
        expectError(
          await call(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {}),
          400,
          "paramError",
          /^notifyUrl\b/
        )
        expectError(
          await call(mock.url, "PUT", `/dev/merchants/${TEST_MERCHANT_APP_KEY}/notify-url`, {
            notifyUrl: "http://u:p@127.0.0.1:9/cb"
          }),
          400,
          "paramError",
          /^notifyUrl: must not contain a user name or password$/
        )
        const view = expectOk(await call<MerchantView>(mock.url, "GET", `/dev/merchants/${TEST_MERCHANT_APP_KEY}`))
        expect(view.notifyUrl ?? "").not.toContain("u:p@")
        expectError(
          await call(mock.url, "PUT", `/dev/merchants/${randomUUID()}/notify-url`, { notifyUrl: "https://x.example/" }),
          404,
          "notFound"
        )
      })
    })
  })

  describe("platform keys", () => {
    it("publishes version 1 as an SPKI PEM that imports, status current, never a private key", async () => {
      const answer = await call<ReadonlyArray<PlatformKeyView>>(mock.url, "GET", "/dev/platform-keys")
      const keys = expectOk(answer)
      expect(keys).toEqual([
        {
          environment: "production",
          version: 1,
          publicKeyPem: expect.stringMatching(/^-----BEGIN PUBLIC KEY-----\n/),
          status: "current"
        }
      ])
      const verifier = await NodeCrypto.importPublicKey(keys[0]!.publicKeyPem)
      expect(verifier.modulusLength).toBeGreaterThanOrEqual(2048)
      expect(answer.text).not.toMatch(/PRIVATE/i)
    })

    it("rotates: the new version 2 is current, version 1 stays published", async () => {
      const answer = await call<PlatformKeyView>(mock.url, "POST", "/dev/platform-keys/rotate")
      const rotated = expectOk(answer)
      expect(rotated).toEqual({
        environment: "production",
        version: 2,
        publicKeyPem: expect.stringMatching(/^-----BEGIN PUBLIC KEY-----\n/),
        status: "current"
      })
      expect(answer.text).not.toMatch(/PRIVATE/i)
      await NodeCrypto.importPublicKey(rotated.publicKeyPem)
      const list = await call<ReadonlyArray<PlatformKeyView>>(mock.url, "GET", "/dev/platform-keys")
      const keys = expectOk(list)
      expect(keys.map((key) => [key.version, key.status])).toEqual([
        [1, "published"],
        [2, "current"]
      ])
      expect(keys[1]!.publicKeyPem).toBe(rotated.publicKeyPem)
      expect(keys[0]!.publicKeyPem).not.toBe(rotated.publicKeyPem)
      expect(list.text).not.toMatch(/PRIVATE/i)
    })
  })

  describe("orders and callbacks", () => {
    let receiver: Receiver
    let testSigner: Crypto.Signer

    beforeAll(async () => {
      receiver = await startReceiver(
        (request) => (request.url === "/fail" ? { status: 500, body: "merchant is down" } : 200),
        { path: "" }
      )
      testSigner = await testMerchantSigner()
    })
    afterAll(async () => {
      await receiver?.close()
    })

    const newOrder = async (
      appKey = TEST_MERCHANT_APP_KEY,
      signer = testSigner,
      amount = "10.00"
    ): Promise<OrderView> => {
      const body = newOrderBody(amount)
      const created = expectOk(await createOrder(mock.url, { appKey, signer, keyVersion: 1, body }))
      return expectOk(await call<OrderView>(mock.url, "GET", `/dev/orders/${created.orderSn}`))
    }

    const merchantWithReceiver = async (path: "/ok" | "/fail") => {
      const pair = shared
      const { appKey } = expectOk(
        await call<{ appKey: string }>(mock.url, "POST", "/dev/merchants", {
          publicKeyPem: pair.publicKeyPem,
          notifyUrl: `${receiver.url}${path}`
        })
      )
      return { appKey, signer: await NodeCrypto.importPrivateKey(pair.privateKeyPem) }
    }

    const deliveriesOf = async (orderSn: string) =>
      expectOk(
        await call<ReadonlyArray<DeliveryView>>(
          mock.url,
          "GET",
          `/dev/callbacks?orderSn=${encodeURIComponent(orderSn)}`
        )
      )

    const verifyCallback = async (received: ReceivedRequest, appKey: string) => {
      const timestamp = header(received, Headers.CallbackHeaders.timestamp)
      const signature = header(received, Headers.CallbackHeaders.signature)
      const version = Number(header(received, Headers.CallbackHeaders.keyVersion))
      expect(received.method).toBe("POST")
      expect(header(received, "content-type")).toMatch(/^application\/json/)
      expect(Math.abs(Number(timestamp) - Date.now())).toBeLessThan(60_000)
      const keys = expectOk(await call<ReadonlyArray<PlatformKeyView>>(mock.url, "GET", "/dev/platform-keys"))
      const key = keys.find((k) => k.version === version)
      expect(key).toBeDefined()
      const verifier = await NodeCrypto.importPublicKey(key!.publicKeyPem)
      const text = Canonical.callbackStringToSign({ appKey, timestamp, body: received.body })
      expect(await verifier.verify(text, signature)).toBe(true)
      return { version, keys }
    }

    it("GET /dev/orders/{orderSn} shows the order", async () => {
      const order = await newOrder(TEST_MERCHANT_APP_KEY, testSigner, "12.5")
      expect(Object.keys(order).sort()).toEqual([
        "amount",
        "createdAt",
        "currency",
        "orderSn",
        "outerOrder",
        "status",
        "updatedAt"
      ])
      expect(order).toMatchObject({ amount: "12.50", currency: "USD", status: "CREATED" })
      expect(order.createdAt).toMatch(ISO)
      expect(order.updatedAt).toBe(order.createdAt)
    })

    it.each([
      ["pay", "PAID"],
      ["fail", "FAILED"],
      ["expire", "EXPIRED"]
    ])("POST /dev/orders/{orderSn}/%s moves CREATED to %s; any second move is a paramError", async (verb, status) => {
      const order = await newOrder()
      const moved = expectOk(await call<OrderView>(mock.url, "POST", `/dev/orders/${order.orderSn}/${verb}`))
      expect(moved).toMatchObject({
        orderSn: order.orderSn,
        outerOrder: order.outerOrder,
        status,
        createdAt: order.createdAt
      })
      expect(Date.parse(moved.updatedAt)).toBeGreaterThanOrEqual(Date.parse(order.createdAt))
      expect(expectOk(await call<OrderView>(mock.url, "GET", `/dev/orders/${order.orderSn}`)).status).toBe(status)
      for (const again of ["pay", "fail", "expire"]) {
        expectError(
          await call(mock.url, "POST", `/dev/orders/${order.orderSn}/${again}`),
          400,
          "paramError",
          new RegExp(status)
        )
      }
      // The final state did not move.
      expect(expectOk(await call<OrderView>(mock.url, "GET", `/dev/orders/${order.orderSn}`)).status).toBe(status)
    })

    it("answers notFound for an unknown order", async () => {
      expectError(await call(mock.url, "GET", "/dev/orders/PC00000000000000000000"), 404, "notFound")
      for (const verb of ["pay", "fail", "expire"]) {
        expectError(await call(mock.url, "POST", `/dev/orders/PC00000000000000000000/${verb}`), 404, "notFound")
      }
    })

    it("records a waiting delivery, with its failed attempt, when the merchant has no notifyUrl", async () => {
      const order = await newOrder()
      expectOk(await call(mock.url, "POST", `/dev/orders/${order.orderSn}/pay`))
      const [delivery] = await until(
        async () => {
          const deliveries = await deliveriesOf(order.orderSn)
          return (deliveries[0]?.attemptCount ?? 0) >= 1 ? deliveries : undefined
        },
        "the first attempt",
        { timeoutMs: 5_000, intervalMs: 25 }
      )
      expect(delivery).toMatchObject({ orderSn: order.orderSn, eventType: "order.paid", status: "pending" })
      expect(delivery!.attempts[0]).toEqual(
        expect.objectContaining({ attempt: 1, url: null, httpStatus: null, error: expect.stringMatching(/notifyUrl/) })
      )
    })

    it("delivers a signed callback, lists it with its attempts, and resends it with the rotated key", async () => {
      const { appKey, signer } = await merchantWithReceiver("/ok")
      const order = await newOrder(appKey, signer, "7.25")
      const before = receiver.received.length
      const paid = expectOk(await call<OrderView>(mock.url, "POST", `/dev/orders/${order.orderSn}/pay`))

      const first = await until(
        async () => receiver.received.slice(before).find((r) => r.body.includes(order.orderSn)),
        "the callback",
        { timeoutMs: 5_000, intervalMs: 25 }
      )
      expect(first.url).toBe("/ok")
      const { version, keys: keysBefore } = await verifyCallback(first, appKey)
      // Signed by the key that is current now (this server's keys were rotated once above).
      expect(version).toBe(keysBefore.find((k) => k.status === "current")!.version)
      // The body is compact JSON with the contract's fields, in its order.
      const event: unknown = JSON.parse(first.body)
      expect(JSON.stringify(event)).toBe(first.body)
      if (!isRecord(event)) throw new Error("callback body is not an object")
      expect(Object.keys(event)).toEqual(Object.keys(Wire.CallbackEvent.fields))
      expect(event).toMatchObject({
        eventType: "order.paid",
        orderSn: order.orderSn,
        outerOrder: order.outerOrder,
        amount: "7.25",
        currency: "USD",
        status: "PAID",
        createdAt: order.createdAt,
        updatedAt: paid.updatedAt
      })
      // The merchant's key never verifies a callback: the platform key does.
      const merchantKey = expectOk(await call<MerchantView>(mock.url, "GET", `/dev/merchants/${appKey}`))
      expect(merchantKey.keys).toHaveLength(1)

      const [delivery] = await until(
        async () => {
          const deliveries = await deliveriesOf(order.orderSn)
          return deliveries[0]?.status === "delivered" ? deliveries : undefined
        },
        "the delivery to be recorded",
        { timeoutMs: 5_000, intervalMs: 25 }
      )
      expect(delivery).toMatchObject({
        orderSn: order.orderSn,
        eventId: event.eventId,
        eventType: "order.paid",
        status: "delivered",
        attemptCount: 1,
        lastError: null,
        body: first.body
      })
      expect(delivery!.id).toBeTruthy()
      expect(delivery!.attempts).toEqual([
        {
          attempt: 1,
          at: expect.stringMatching(ISO),
          url: `${receiver.url}/ok`,
          httpStatus: 200,
          error: null,
          keyVersion: version,
          durationMs: expect.any(Number),
          // Exactly what the merchant received.
          requestHeaders: {
            "content-type": "application/json",
            "X-R-Ts": first.headers["x-r-ts"],
            "X-R-Signature": first.headers["x-r-signature"],
            "X-R-Key-Version": String(version)
          },
          requestBody: first.body
        }
      ])

      // Rotate, then resend: the same event, signed afresh by the new current key.
      expectOk(await call(mock.url, "POST", "/dev/platform-keys/rotate"))
      const countBefore = receiver.received.length
      const resent = expectOk(await call<DeliveryView>(mock.url, "POST", `/dev/callbacks/${delivery!.id}/resend`))
      expect(resent).toMatchObject({ id: delivery!.id, orderSn: order.orderSn, eventId: event.eventId })
      const second = await until(
        async () => receiver.received.slice(countBefore).find((r) => r.body.includes(order.orderSn)),
        "the resent callback",
        { timeoutMs: 5_000, intervalMs: 25 }
      )
      expect(second.body).toBe(first.body)
      const rotated = await verifyCallback(second, appKey)
      expect(rotated.version).toBe(version + 1)
      expect(rotated.keys.find((k) => k.version === version)?.status).toBe("published")
      // The old key does not verify what the new one signed.
      const oldVerifier = await NodeCrypto.importPublicKey(
        rotated.keys.find((k) => k.version === version)!.publicKeyPem
      )
      const text = Canonical.callbackStringToSign({
        appKey,
        timestamp: header(second, Headers.CallbackHeaders.timestamp),
        body: second.body
      })
      expect(await oldVerifier.verify(text, header(second, Headers.CallbackHeaders.signature))).toBe(false)

      const [after] = await until(
        async () => {
          const deliveries = await deliveriesOf(order.orderSn)
          return deliveries[0]?.attempts.length === 2 && deliveries[0].status === "delivered" ? deliveries : undefined
        },
        "the second attempt to be recorded",
        { timeoutMs: 5_000, intervalMs: 25 }
      )
      expect(after!.attempts.map((a) => [a.attempt, a.httpStatus, a.keyVersion])).toEqual([
        [1, 200, version],
        [2, 200, version + 1]
      ])
    })

    it("retries a delivery the merchant refuses, recording each attempt's HTTP status and error", async () => {
      const { appKey, signer } = await merchantWithReceiver("/fail")
      const order = await newOrder(appKey, signer)
      expectOk(await call(mock.url, "POST", `/dev/orders/${order.orderSn}/fail`))
      // An attempt is recorded just before it is sent (no HTTP status until its answer): judge the
      // answered ones.
      const answered = <A extends { readonly httpStatus: number | null }>(attempts: ReadonlyArray<A>) =>
        attempts.filter((attempt) => attempt.httpStatus !== null)
      const [delivery] = await until(
        async () => {
          const deliveries = await deliveriesOf(order.orderSn)
          return answered(deliveries[0]?.attempts ?? []).length >= 2 ? deliveries : undefined
        },
        "two answered attempts",
        { timeoutMs: 5_000, intervalMs: 25 }
      )
      expect(delivery).toMatchObject({ eventType: "order.failed" })
      expect(delivery!.status).not.toBe("delivered")
      for (const attempt of delivery!.attempts.filter((a) => a.httpStatus === null)) {
        expect(attempt.error).toMatch(/^no outcome recorded/)
      }
      for (const attempt of answered(delivery!.attempts)) {
        expect(attempt).toMatchObject({
          url: `${receiver.url}/fail`,
          httpStatus: 500,
          error: expect.stringMatching(/500/)
        })
      }
    })

    it("lists every delivery without orderSn, and none for an order without moves", async () => {
      const all = expectOk(await call<ReadonlyArray<DeliveryView>>(mock.url, "GET", "/dev/callbacks"))
      expect(all.length).toBeGreaterThanOrEqual(3)
      const order = await newOrder()
      expect(await deliveriesOf(order.orderSn)).toEqual([])
    })

    it("answers notFound when resending an unknown delivery", async () => {
      expectError(await call(mock.url, "POST", "/dev/callbacks/dlv_nope/resend"), 404, "notFound")
    })
  })
})

describe.each(Environment.environments)("the %s mock", (environment) => {
  let mock: Mock
  beforeAll(async () => {
    mock = await startMock({ environment })
  })
  afterAll(async () => {
    await mock?.close()
  })

  it("has the test merchant 7e57c0de-0000-4000-8000-000000000001 with key version 1", async () => {
    expect(TEST_MERCHANT_APP_KEY).toBe("7e57c0de-0000-4000-8000-000000000001")
    const answer = await dev<MerchantView>(mock.url, "GET", `/dev/merchants/${TEST_MERCHANT_APP_KEY}`)
    expect(answer.status).toBe(200)
    expect(answer.json.code).toBe("SUCCESS")
    const view = answer.json.data
    expect(view).toEqual({
      appKey: TEST_MERCHANT_APP_KEY,
      notifyUrl: null,
      keys: [{ version: 1, status: "active", uploadedAt: expect.stringMatching(ISO) }]
    })
  })

  it("publishes its own platform key, version 1, for this environment", async () => {
    const keys = expectOk(await call<ReadonlyArray<PlatformKeyView>>(mock.url, "GET", "/dev/platform-keys"))
    expect(keys).toHaveLength(1)
    expect(keys[0]).toMatchObject({ environment, version: 1, status: "current" })
    publishedKeys.set(environment, keys[0]!.publicKeyPem)
  })
})

const publishedKeys = new Map<string, string>()

describe("platform keys across environments", () => {
  it("differ between sandbox, production and gray", () => {
    expect(publishedKeys.size).toBe(3)
    expect(new Set(publishedKeys.values()).size).toBe(3)
  })
})
