/**
 * Who may use the developer menu (CONTRACT.md "Exposure"). Bound to loopback it is open; bound to
 * any other address, every `/dev/` route (the dashboard's actions use them) requires
 * `Authorization: Bearer <token>`: the menu registers merchant keys, redirects notify URLs, rotates
 * platform keys and pays orders, so an open one lets anyone on the network sign as any merchant.
 * A pure decision on configuration and request; the HTTP layer only asks it.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import type { MockConfigShape } from "../../config/Config.js"
import { isLoopbackHost } from "../../config/UrlRule.js"
import { ApiError } from "../ApiError.js"

/** The developer menu's access rule for one running mock. */
export interface DevAccessPolicy {
  /** The token required on /dev routes, or `undefined` when the menu is open (loopback, no token given). */
  readonly token: string | undefined
  /** True when the mock made the token itself (it must print it). */
  readonly generated: boolean
  /** True when the mock is bound to an address that is not loopback. */
  readonly exposed: boolean
}

/**
 * The policy for a configuration: the given `--dev-token` (required wherever the mock is bound),
 * else a fresh random token when bound to a non-loopback address, else none.
 *
 * @example
 * ```ts
 * devAccessPolicy({ ...defaults, host: "0.0.0.0" }) // { token: "<32 random chars>", generated: true, exposed: true }
 * devAccessPolicy({ ...defaults, host: "127.0.0.1" }) // { token: undefined, generated: false, exposed: false }
 * ```
 */
export const devAccessPolicy = (
  config: Pick<MockConfigShape, "host" | "devToken">,
  generate: () => string = () => randomBytes(24).toString("base64url")
): DevAccessPolicy => {
  const exposed = !isLoopbackHost(config.host)
  if (config.devToken !== undefined) return { token: config.devToken, generated: false, exposed }
  return exposed ? { token: generate(), generated: true, exposed } : { token: undefined, generated: false, exposed }
}

/**
 * Whether a path belongs to the developer menu. Every `/dev` path counts, also unknown ones, so
 * that a 404 does not tell an unauthenticated caller which routes exist.
 *
 * @example
 * ```ts
 * isDevPath("/dev/platform-keys/rotate") // true
 * isDevPath("/h5/checkout/PC1") // false
 * ```
 */
export const isDevPath = (path: string): boolean => {
  // Percent-encoding and case must not open a way around the check: /%64ev/ and /DEV/ both count.
  let decoded = path
  try {
    decoded = decodeURIComponent(path)
  } catch {
    // A malformed escape: judge the path as written.
  }
  const lower = decoded.toLowerCase().replace(/\/{2,}/g, "/")
  return lower === "/dev" || lower.startsWith("/dev/")
}

// Hashes first, so that the comparison takes the same time whatever the lengths.
const sameToken = (given: string, expected: string): boolean =>
  timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest())

const unauthorized = (msg: string) =>
  new ApiError({ code: "unauthorized", msg, headers: { "www-authenticate": "Bearer" } })

/**
 * The refusal of a request, or `undefined` when it may go on: a `/dev` path needs
 * `Authorization: Bearer <token>` whenever the policy has a token (compared in constant time).
 *
 * @example
 * ```ts
 * checkDevAccess(policy, "/dev/platform-keys", req.headers.authorization) // ApiError unauthorized, or undefined
 * ```
 */
export const checkDevAccess = (
  policy: DevAccessPolicy,
  path: string,
  authorization: string | undefined
): ApiError | undefined => {
  if (policy.token === undefined || !isDevPath(path)) return undefined
  const match = authorization === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)
  if (match === null) {
    return unauthorized(
      "the developer menu requires Authorization: Bearer <token> (the --dev-token, or the one printed at start)"
    )
  }
  return sameToken(match[1]!, policy.token) ? undefined : unauthorized("the developer token is not valid")
}
