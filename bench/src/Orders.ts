// Signed create-order requests made before any clock starts: distinct orders for the test
// merchant, each signed with its private key. Signing is the slow part (a 2048-bit RSA signature
// per order), so a run signs a pool once and the load generator cycles through it.
import { Canonical } from "@pc/core"
import { createPrivateKey, type KeyObject, sign } from "node:crypto"
import { readFileSync } from "node:fs"
import { CREATE_ORDER_PATH, TEST_MERCHANT_APP_KEY, testMerchantKeyFile } from "./Servers.js"

export interface SignedOrder {
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

const privateKey = () => createPrivateKey(readFileSync(testMerchantKeyFile("private"), "utf8"))

/**
 * The headers of a create-order request over `body`, signed with a timestamp `aheadMs` from now.
 * The mock accepts X-R-TS within 5 minutes either side of its clock, so a pool stamped 4 minutes
 * ahead stays valid for 9 minutes: long enough for a whole run without signing again.
 */
export const signCreate = (body: string, key = privateKey(), aheadMs = 0): Readonly<Record<string, string>> => {
  const timestamp = String(Date.now() + aheadMs)
  const text = Canonical.requestStringToSign({
    method: "POST",
    path: CREATE_ORDER_PATH,
    appKey: TEST_MERCHANT_APP_KEY,
    timestamp,
    body
  })
  return {
    "content-type": "application/json",
    "x-r-ak": TEST_MERCHANT_APP_KEY,
    "x-r-ts": timestamp,
    "x-r-key-version": "1",
    "x-r-signature": sign("sha256", Buffer.from(text), key).toString("base64")
  }
}

const signOnThreadPool = (text: string, key: KeyObject): Promise<string> =>
  new Promise((resolve, reject) =>
    sign("sha256", Buffer.from(text), key, (error, signature) =>
      error === null ? resolve(signature.toString("base64")) : reject(error)
    )
  )

/**
 * `count` distinct new orders (`orderId` = `<tag>-<i>`) spread over `appKeys` in turn, every
 * merchant holding the test merchant's key pair, stamped 4 minutes ahead like {@link signOrders}.
 * Signed on libuv's thread pool, a few at a time, so that both cores sign: the new-order runs need
 * tens of thousands of signatures, each a few hundred microseconds to milliseconds of CPU.
 */
export const signNewOrders = async (
  count: number,
  tag: string,
  appKeys: ReadonlyArray<string>
): Promise<ReadonlyArray<SignedOrder>> => {
  const key = privateKey()
  const orders: Array<SignedOrder> = []
  for (let from = 0; from < count; from += 64) {
    const batch = Array.from({ length: Math.min(64, count - from) }, async (_, j) => {
      const i = from + j
      const appKey = appKeys[i % appKeys.length]!
      const body = JSON.stringify({ orderId: `${tag}-${i}`, amount: "10.00", currency: "USD" })
      const timestamp = String(Date.now() + 240_000)
      const text = Canonical.requestStringToSign({ method: "POST", path: CREATE_ORDER_PATH, appKey, timestamp, body })
      const headers = {
        "content-type": "application/json",
        "x-r-ak": appKey,
        "x-r-ts": timestamp,
        "x-r-key-version": "1",
        "x-r-signature": await signOnThreadPool(text, key)
      }
      return { body, headers }
    })
    orders.push(...(await Promise.all(batch)))
  }
  return orders
}

/** `count` distinct orders (`orderId` = `<tag>-<i>`), stamped 4 minutes ahead (see {@link signCreate}). */
export const signOrders = (count: number, tag: string): ReadonlyArray<SignedOrder> => {
  const key = privateKey()
  return Array.from({ length: count }, (_, i) => {
    const body = JSON.stringify({ orderId: `${tag}-${i}`, amount: "10.00", currency: "USD" })
    return { body, headers: signCreate(body, key, 240_000) }
  })
}

/**
 * The same pool with every `every`-th order's signature broken (one Base64 character changed, so it
 * is still well-formed and the server does the whole verification to refuse it): the load run with
 * 5% bad signatures uses `every` = 20.
 */
export const withBadSignatures = (orders: ReadonlyArray<SignedOrder>, every: number): ReadonlyArray<SignedOrder> =>
  orders.map((order, i) => {
    if (i % every !== every - 1) return order
    const signature = order.headers["x-r-signature"]!
    const flipped = `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`
    return { body: order.body, headers: { ...order.headers, "x-r-signature": flipped } }
  })
