// The mock's folders are layers (README "Layout"): a module imports from its own folder or from one
// below it, never from one above, so following a request down never leads back up. The domain
// (create order, authentication, the developer-access policy) knows nothing of HTTP: both
// create-order adapters, the node:http fast path and the HttpApi handler, call the same flow.
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../src")

/** Top to bottom; `index.ts` (the public entry) stands above them all. */
const LAYERS: ReadonlyArray<string> = [
  "main",
  "handlers",
  "server",
  "docs",
  "dashboard",
  "api",
  "callbacks",
  "domain/orders",
  "domain/auth",
  "domain",
  "store",
  "log",
  "events",
  "config"
]

/** What the domain must not import: the HTTP edge, in our folders or in a library. */
const HTTP_FREE_FOLDERS = ["main", "handlers", "server", "api", "docs", "dashboard"]
const HTTP_MODULES = /^(node:)?https?$|^node:http2$|^@effect\/platform(-node)?(\/|$)/

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

/** Every module specifier a file names: static imports, re-exports and dynamic imports. */
const specifiersOf = (text: string): ReadonlyArray<string> =>
  Array.from(text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*"([^"]+)"/g), (match) => match[1]!)

/** The layer a file under src/ sits in: its deepest listed folder. */
const layerOf = (file: string): string | undefined => {
  const folder = dirname(relative(src, file)).split("\\").join("/")
  return LAYERS.find((layer) => folder === layer || folder.startsWith(`${layer}/`))
}

interface Arrow {
  readonly from: string
  readonly to: string
}

/** The imports between our own modules, as paths relative to src/. */
const arrowsOf = (files: ReadonlyArray<{ readonly file: string; readonly text: string }>): ReadonlyArray<Arrow> =>
  files.flatMap(({ file, text }) =>
    specifiersOf(text)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => ({
        from: relative(src, file),
        to: relative(src, resolve(dirname(file), specifier.replace(/\.js$/, ".ts")))
      }))
  )

/** The arrows that run from a layer to one above it. */
const upwardArrows = (arrows: ReadonlyArray<Arrow>): ReadonlyArray<string> =>
  arrows.flatMap(({ from, to }) => {
    const fromLayer = layerOf(join(src, from))
    const toLayer = layerOf(join(src, to))
    if (fromLayer === undefined) return from === "index.ts" ? [] : [`${from}: in no layer`]
    if (toLayer === undefined) return [`${from} -> ${to}: into no layer`]
    return LAYERS.indexOf(toLayer) < LAYERS.indexOf(fromLayer) ? [`${from} -> ${to}`] : []
  })

/** The imports of HTTP from anything under domain/. */
const httpInDomain = (files: ReadonlyArray<{ readonly file: string; readonly text: string }>) =>
  files
    .filter(({ file }) => relative(src, file).startsWith("domain/"))
    .flatMap(({ file, text }) =>
      specifiersOf(text)
        .filter((specifier) => {
          if (HTTP_MODULES.test(specifier)) return true
          if (!specifier.startsWith(".")) return false
          const target = relative(src, resolve(dirname(file), specifier))
          return HTTP_FREE_FOLDERS.some((folder) => target.startsWith(`${folder}/`))
        })
        .map((specifier) => `${relative(src, file)} -> ${specifier}`)
    )

/** Each import cycle among our modules, as the path around it (none expected). */
const cyclesOf = (arrows: ReadonlyArray<Arrow>): ReadonlyArray<string> => {
  const next = new Map<string, Array<string>>()
  for (const { from, to } of arrows) next.set(from, [...(next.get(from) ?? []), to])
  const cycles: Array<string> = []
  const done = new Set<string>()
  const visit = (module: string, path: ReadonlyArray<string>) => {
    const seen = path.indexOf(module)
    if (seen >= 0) return void cycles.push([...path.slice(seen), module].join(" -> "))
    if (done.has(module)) return
    for (const target of next.get(module) ?? []) visit(target, [...path, module])
    done.add(module)
  }
  for (const module of next.keys()) visit(module, [])
  return cycles
}

const files = sourceFiles(src).map((file) => ({ file, text: readFileSync(file, "utf8") }))

describe("the mock's layers", () => {
  it("every source file sits in a layer", () => {
    expect(files.filter(({ file }) => layerOf(file) === undefined).map(({ file }) => relative(src, file))).toEqual([
      "index.ts"
    ])
  })

  it("no import runs back up", () => {
    expect(upwardArrows(arrowsOf(files))).toEqual([])
  })

  it("no module imports itself back through others (store/StoreError.ts and the aggregates' modules included)", () => {
    expect(cyclesOf(arrowsOf(files))).toEqual([])
  })

  it("nothing under domain/ imports HTTP: not server/, handlers/, api/, nor node:http or @effect/platform", () => {
    expect(httpInDomain(files)).toEqual([])
  })

  it("the check sees what it guards against", () => {
    const planted = [
      { file: join(src, "domain/orders/Planted.ts"), text: 'import type { IncomingMessage } from "node:http"\n' },
      { file: join(src, "domain/Planted.ts"), text: 'import { readBody } from "../server/Body.js"\n' },
      { file: join(src, "domain/auth/Planted.ts"), text: 'const api = await import("../../api/MockApi.js")\n' }
    ]
    expect(httpInDomain(planted)).toEqual([
      "domain/orders/Planted.ts -> node:http",
      "domain/Planted.ts -> ../server/Body.js",
      "domain/auth/Planted.ts -> ../../api/MockApi.js"
    ])
    expect(
      upwardArrows(arrowsOf([{ file: join(src, "store/Planted.ts"), text: 'import "../domain/Step.js"\n' }]))
    ).toEqual(["store/Planted.ts -> domain/Step.ts"])
    expect(
      cyclesOf(
        arrowsOf([
          { file: join(src, "store/A.ts"), text: 'import type { B } from "./B.js"\n' },
          { file: join(src, "store/B.ts"), text: 'import { A } from "./A.js"\n' }
        ])
      )
    ).toEqual(["store/A.ts -> store/B.ts -> store/A.ts"])
  })
})
