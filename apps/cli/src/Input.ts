/**
 * What commands read from the command line and the disk: bodies given as `JSON` or `@FILE` (kept
 * as the exact bytes, never parsed and re-serialised, since those bytes are what gets signed) and
 * key files.
 */
import * as Effect from "effect/Effect"
import { readFile } from "node:fs/promises"
import { usage } from "./Output.js"

/**
 * The exact bytes of `--body`: the text itself, or the contents of FILE for `@FILE` (`@-` reads stdin).
 *
 * Fails with a usage `CliFailure` when the file cannot be read.
 *
 * @example
 * ```ts
 * import { bodyBytes } from "./Input.js"
 *
 * bodyBytes('{"orderId":"M-1","amount":"10.00","currency":"USD"}')
 * ```
 */
export const bodyBytes = (argument: string): Effect.Effect<Uint8Array, ReturnType<typeof usage>> => {
  if (!argument.startsWith("@")) return Effect.succeed(new Uint8Array(Buffer.from(argument, "utf8")))
  const file = argument.slice(1)
  return Effect.tryPromise({
    try: async () => new Uint8Array(file === "-" ? await readStdin() : await readFile(file)),
    catch: (error) => usage(`cannot read the body from ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`)
  })
}

const readStdin = async (): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/**
 * A key file's text. Fails with a usage `CliFailure` naming the file (never its contents).
 *
 * @example
 * ```ts
 * import { keyFile } from "./Input.js"
 *
 * keyFile("merchant-public.pem")
 * ```
 */
export const keyFile = (file: string, what = "key file"): Effect.Effect<string, ReturnType<typeof usage>> =>
  Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: (error) => usage(`cannot read the ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`)
  })
