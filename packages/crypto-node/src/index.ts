/**
 * @pc/crypto-node: the Merchant Payment Connect signer and verifier on node:crypto.
 *
 * @since 0.1.0
 */
export * as KeyPair from "./KeyPair.js"
export * as NodeCrypto from "./NodeCrypto.js"
