// The openssl vector keys, from the one conformance package that holds them.
export { keyOf, type VectorKey } from "@pc/crypto-conformance"

/** The test-only appKey of the vectors. */
export const APP_KEY = "78e6ac0e-e0bc-458a-bd0b-3fcbd6ace6b4"

/** Another merchant's appKey, for "wrong appKey" cases. */
export const OTHER_APP_KEY = "fd9273da-e0ca-474a-825f-744c3dcbd1ad"
