// Importing only the signing functions must not pull the Schema runtime into a bundle. This bundles
// real entry points with esbuild (as a web app's bundler would) and inspects what came along.
import { build } from "esbuild"
import { describe, expect, it } from "vitest"

const bundle = async (contents: string): Promise<string> => {
  const result = await build({
    stdin: { contents, resolveDir: new URL("..", import.meta.url).pathname, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    treeShaking: true,
    minify: false,
    logLevel: "silent"
  })
  return result.outputFiles[0]!.text
}

// Text that only exists where effect's Schema module (or effect at all) was bundled.
const SCHEMA_MARKERS = ["ParseError", "TypeLiteral", "effect/Schema"]

describe("bundles that only sign", () => {
  it("the Canonical module alone carries no Schema runtime", async () => {
    const code = await bundle(
      `import { requestStringToSign } from "./src/Canonical.ts"; console.log(requestStringToSign)`
    )
    for (const marker of SCHEMA_MARKERS) expect(code).not.toContain(marker)
    expect(code.length).toBeLessThan(5_000)
  })

  it("signing through the package index tree-shakes Wire away", async () => {
    const code = await bundle(
      `import { Canonical, Headers, Base64 } from "./src/index.ts"; console.log(Canonical.requestStringToSign, Headers.parseRequest, Base64.encode)`
    )
    for (const marker of SCHEMA_MARKERS) expect(code).not.toContain(marker)
    expect(code.length).toBeLessThan(30_000)
  })

  it("the markers do appear when Wire is used, so the checks above can fail", async () => {
    const code = await bundle(`import { CreateOrderRequest } from "./src/Wire.ts"; console.log(CreateOrderRequest)`)
    expect(SCHEMA_MARKERS.some((marker) => code.includes(marker))).toBe(true)
  })
})

/** The bare imports that loading `contents` reaches, with `effect` kept as an import so it shows. */
const importsOf = async (contents: string): Promise<ReadonlyArray<string>> => {
  const result = await build({
    stdin: { contents, resolveDir: new URL("..", import.meta.url).pathname, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    metafile: true,
    external: ["effect", "effect/*"],
    logLevel: "silent"
  })
  return Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path))
}

// `effect` is an optional peer, so npm does not install it: the package index must load without it
// (every namespace, not only what a bundler would keep), and only `@pc/core/Wire` may need it.
describe("the package index without effect", () => {
  it("imports nothing from effect, even kept whole", async () => {
    expect(await importsOf(`export * from "./src/index.ts"`)).toEqual([])
  })

  it("the check can fail: the Wire entry does import effect", async () => {
    const imports = await importsOf(`export * from "./src/Wire.ts"`)
    expect(imports.some((path) => path === "effect" || path.startsWith("effect/"))).toBe(true)
  })
})
