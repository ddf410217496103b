// Signed create-order requests made before any clock starts: distinct orders for the test
// merchant, each signed with its private key. Signing is the slow part (a 2048-bit RSA signature
// per order), so a run signs a pool once and the load generator cycles through it.
import { Canonical } from "@pc/core"
import { createPrivateKey, sign } from "node:crypto"
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
