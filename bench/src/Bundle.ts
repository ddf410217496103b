// The web signing bundle a merchant's front end or edge function would ship: core's canonical
// string and @pc/crypto-web's signer, bundled by esbuild for the browser, minified and gzipped.
import { build } from "esbuild"
import { gzipSync } from "node:zlib"
import { atMost, type SuiteResult } from "./Results.js"

const ENTRY = `
import { requestStringToSign } from "@pc/core/Canonical"
import { WebCrypto } from "@pc/crypto-web"
export const signRequest = async (privateKeyPem, input) =>
  (await WebCrypto.importPrivateKey(privateKeyPem)).sign(requestStringToSign(input))
`

export const bundleSuite = async (): Promise<SuiteResult> => {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: new URL(".", import.meta.url).pathname, loader: "js" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    minify: true,
    treeShaking: true,
    metafile: true,
    logLevel: "silent"
  })
  const code = result.outputFiles[0]!.contents
  const gzipped = gzipSync(code, { level: 9 }).length
  // Any module of the effect package in the bundle is the Effect runtime coming along.
  const effectModules = Object.keys(result.metafile.inputs).filter((input) => /(^|\/)effect(@[^/]+)?\//.test(input))
  return {
    targets: {
      "web signing bundle, minified + gzipped": atMost(gzipped, 4096, "bytes", "esbuild, browser, ESM, gzip -9"),
      "effect modules in the web signing bundle": atMost(
        effectModules.length,
        0,
        "files",
        "inputs of the bundle from the effect package"
      )
    },
    figures: {
      minifiedBytes: code.length,
      gzippedBytes: gzipped,
      inputs: Object.keys(result.metafile.inputs),
      effectModules
    }
  }
}
