/**
 * @pc/crypto-web: the Merchant Payment Connect signer and verifier on WebCrypto.
 *
 * @since 0.1.0
 */
export * as WebCrypto from "./WebCrypto.js"
