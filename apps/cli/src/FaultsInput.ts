/**
 * A fault setting (CONTRACT.md "Faults and time") as the command line gives it: inline JSON, or
 * the path of a JSON file, for `pc mock --faults` and `pc faults set`.
 */
import { FaultSetting } from "@pc/mock-server"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"

const decode = Schema.decodeUnknownEither(FaultSetting)

/**
 * The setting `given` names (JSON when it starts with `{`, else a file of JSON), or why not.
 *
 * @example
 * ```ts
 * readFaultSetting('{"seed":7,"createOrder":{"lostResponseRate":0.3}}') // Either.right({ seed: 7, ... })
 * ```
 */
export const readFaultSetting = (given: string): Either.Either<FaultSetting, string> => {
  const inline = given.trimStart().startsWith("{")
  let text: string
  try {
    text = inline ? given : readFileSync(given, "utf8")
  } catch (error) {
    return Either.left(`--faults: cannot read ${given}: ${error instanceof Error ? error.message : String(error)}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return Either.left(`--faults: ${inline ? "the value" : given} is not JSON`)
  }
  return Either.mapLeft(
    decode(json),
    (error) =>
      `--faults: ${ParseResult.ArrayFormatter.formatErrorSync(error)
        .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
        .join("; ")}`
  )
}
