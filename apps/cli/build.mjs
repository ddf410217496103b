// Builds `pc` into dist/ for plain Node 20: dist/bin.js and the bundle it loads. One bundle instead
// of hundreds of modules: `pc mock` starts in a fraction of the time and memory that loading every
// Effect module from node_modules took. better-sqlite3 (a native addon) and @pc/mock-server's key files are
// loaded from the installed packages at run time.
import { build } from "esbuild"
import { chmodSync, rmSync } from "node:fs"

/**
 * CommonJS packages that dependencies import but `pc` rarely or never calls: an ESM import of a
 * CommonJS module runs the whole module when the bundle starts (undici alone, which
 * @effect/platform-node's HTTP client imports and pc never uses, was a tenth of `pc mock`'s start;
 * pg, loaded for `--db postgres://`, builds a fetch Response at load, which loads Node's own undici).
 * Each is replaced, for its importers, by a module with the names they use that loads the real
 * package (still in the bundle) on the first call. A name missing here fails the build's smoke
 * test (`pc --help`, `pc mock`), not silently: the importer's reference would be undefined.
 */
const lazyCommonJs = {
  undici: { functions: ["getGlobalDispatcher"], classes: ["Agent"], default: true },
  yaml: { functions: ["parse"] },
  toml: { functions: ["parse"] },
  ini: { functions: ["parse"] },
  pg: { functions: ["escapeIdentifier"], classes: ["Client", "Pool"], default: true },
  "pg-cursor": { defaultClass: true }
}

const lazyCommonJsPlugin = {
  name: "lazy-commonjs",
  setup(build) {
    const filter = new RegExp(`^(${Object.keys(lazyCommonJs).join("|")})$`)
    build.onResolve({ filter }, (args) =>
      // The replacement's own require() resolves to the real package.
      args.kind === "require-call"
        ? undefined
        : { path: args.path, namespace: "lazy-commonjs", pluginData: args.resolveDir }
    )
    build.onLoad({ filter: /.*/, namespace: "lazy-commonjs" }, (args) => {
      const spec = lazyCommonJs[args.path]
      const lines = [`let loaded; const load = () => (loaded ??= require(${JSON.stringify(args.path)}));`]
      for (const name of spec.functions ?? [])
        lines.push(`export const ${name} = (...args) => load().${name}(...args);`)
      for (const name of spec.classes ?? [])
        lines.push(`export class ${name} { constructor(...args) { return new (load().${name})(...args) } }`)
      if (spec.default) lines.push("export default new Proxy({}, { get: (_, key) => load()[key] });")
      if (spec.defaultClass)
        lines.push("export default class { constructor(...args) { return new (load())(...args) } }")
      return { contents: lines.join("\n"), loader: "js", resolveDir: args.pluginData }
    })
  }
}

rmSync("dist", { recursive: true, force: true })
await build({
  entryPoints: ["src/bin.ts"],
  // bin.js is a few lines that run first (Launchers.ts reads the launcher chain as it loads); the
  // rest is a chunk it imports, compiled only after that.
  outdir: "dist",
  splitting: true,
  chunkNames: "[name]-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["better-sqlite3"],
  // V8 scans every byte of an ES module when it compiles it: without comments and blank space the
  // bundle is 30% smaller and compiles in about a third of the time. Names are kept (stack traces,
  // class names in logged defects).
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [lazyCommonJsPlugin],
  // The bundled CommonJS dependencies (ws, better-sqlite3's loader) call require.
  banner: {
    js: 'import { createRequire as __pcCreateRequire } from "node:module";\nconst require = __pcCreateRequire(import.meta.url);'
  },
  legalComments: "linked",
  logLevel: "warning"
})
chmodSync("dist/bin.js", 0o755)
