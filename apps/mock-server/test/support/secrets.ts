// The secrets scan every suite of issue 9 runs on what it collected (log lines, error messages,
// process output): no private key material and no full signature may appear in any of it.
import { testMerchantPrivateKeyPem } from "../../src/main/TestMerchant.js"

/** Base64 runs as long as a 2048-bit RSA signature (344 characters) or longer. */
const SIGNATURE_LIKE = /[A-Za-z0-9+/]{340,}={0,2}/

/** Slices of the test merchant's private key body: any of them in a text means the key leaked. */
const privateKeySlices = (): ReadonlyArray<string> => {
  const body = testMerchantPrivateKeyPem()
    .replace(/-----[A-Z ]+-----/g, "")
    .replace(/\s+/g, "")
  const slices: Array<string> = []
  for (let i = 0; i + 40 <= body.length; i += 200) slices.push(body.slice(i, i + 40))
  return slices
}

/**
 * What in `texts` looks like a secret: each finding names the text's index and what matched.
 * `secrets` are this run's own (a database password, the developer token), found verbatim or
 * percent-encoded.
 */
export const findSecrets = (
  texts: ReadonlyArray<string>,
  secrets: ReadonlyArray<string> = []
): ReadonlyArray<string> => {
  const slices = privateKeySlices()
  const findings: Array<string> = []
  texts.forEach((text, index) => {
    if (/PRIVATE KEY-----/.test(text)) findings.push(`#${index}: a PEM private key block`)
    if (SIGNATURE_LIKE.test(text)) findings.push(`#${index}: a signature-length Base64 run`)
    for (const slice of slices) if (text.includes(slice)) findings.push(`#${index}: test merchant private key material`)
    for (const secret of secrets) {
      if (text.includes(secret) || text.includes(encodeURIComponent(secret))) {
        findings.push(`#${index}: a secret of this run (${secret.length} characters)`)
      }
    }
  })
  return findings
}
