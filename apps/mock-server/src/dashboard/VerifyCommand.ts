/**
 * The copy-paste shell command that verifies one callback attempt's signature with openssl, as
 * the dashboard shows it: the signed string `<appKey>.<X-R-Ts>.<body>` (spec 5.5) and the platform
 * key of the attempt's X-R-Key-Version, written to files in a fresh temporary folder.
 */

/** What one attempt's signature check needs. */
export interface VerifyCommandInput {
  /** The merchant the callback was for: the first part of the signed string. */
  readonly appKey: string
  /** The attempt's X-R-Ts header. */
  readonly timestamp: string
  /** The attempt's X-R-Signature header (standard Base64). */
  readonly signature: string
  /** The exact body sent. */
  readonly body: string
  /** The PEM of the platform key whose version the attempt's X-R-Key-Version names. */
  readonly publicKeyPem: string
}

/**
 * A bash command (POSIX sh too) that prints `Verified OK` when the signature matches, and
 * `Verification failure` when it does not. Every value is single-quoted, so nothing in a body
 * (quotes, `$(...)`, backticks, `%`, backslashes) is run or interpreted; a body that is not plain
 * printable ASCII is written from its UTF-8 bytes in Base64, so that no terminal can change a
 * character on the way. It runs in a subshell, in a new temporary folder, and leaves the caller's
 * working folder as it was. Never fails.
 *
 * Self-contained on purpose (no reference outside its own body): the dashboard page carries its
 * source text to the browser, and the Node tests run the same function.
 *
 * @example
 * ```ts
 * const command = opensslVerifyCommand({ appKey, timestamp: "1767225605000", signature, body, publicKeyPem })
 * // (cd "$(mktemp -d)" &&
 * // printf '%s\n' '-----BEGIN PUBLIC KEY-----' ... > platform.pem && ...
 * // openssl dgst -sha256 -verify platform.pem -signature sig.bin data.txt)
 * ```
 */
export function opensslVerifyCommand(input: VerifyCommandInput): string {
  // In single quotes every character is literal except the quote itself: close, escape it, reopen.
  const quote = (text: string): string => `'${text.split("'").join(`'\\''`)}'`
  const base64 = (text: string): string => {
    let binary = ""
    for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
    return btoa(binary)
  }
  const pemLines = input.publicKeyPem
    .trim()
    .split(/\r?\n/)
    .map((line) => quote(line.trim()))
    .join(" ")
  const printable = /^[\x20-\x7e]*$/.test(input.body)
  const body = printable
    ? `printf '%s' ${quote(input.body)} >> data.txt &&`
    : `printf '%s' ${quote(base64(input.body))} | openssl base64 -d -A >> data.txt &&`
  return [
    `(cd "$(mktemp -d)" &&`,
    `printf '%s\\n' ${pemLines} > platform.pem &&`,
    `printf '%s' ${quote(`${input.appKey}.${input.timestamp}.`)} > data.txt &&`,
    body,
    `printf '%s' ${quote(input.signature)} | openssl base64 -d -A > sig.bin &&`,
    "openssl dgst -sha256 -verify platform.pem -signature sig.bin data.txt)"
  ].join("\n")
}
