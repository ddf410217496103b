/**
 * @pc/core: the pure building blocks of the Merchant Payment Connect API. Each module is also
 * importable on its own (`@pc/core/Canonical`). The wire Schemas are only at `@pc/core/Wire`: they
 * need `effect`, an optional peer, and this entry must load where `effect` is not installed.
 *
 * @since 0.1.0
 */
export * as Base64 from "./Base64.js"
export * as CallbackAudit from "./CallbackAudit.js"
export * as Canonical from "./Canonical.js"
export * as Crypto from "./Crypto.js"
export * as Environment from "./Environment.js"
export * as ErrorCode from "./ErrorCode.js"
export * as Headers from "./Headers.js"
export * as KeyRing from "./KeyRing.js"
export * as KeyVersion from "./KeyVersion.js"
export * as Money from "./Money.js"
export * as Pem from "./Pem.js"
export * as Timestamp from "./Timestamp.js"
