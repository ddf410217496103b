// Builds `pc` into dist/ for plain Node 20: dist/bin.js and the bundle it runs, dist/main.cjs. One
// bundle instead of hundreds of modules: `pc mock` starts in a fraction of the time and memory that
// loading every Effect module from node_modules took. better-sqlite3 (when it is the mock's driver)
// and @pc/mock-server's key files are loaded from the installed packages at run time. Then one start of
// `pc mock` (the smoke test of the bundle) leaves V8's code cache beside it (src/CodeCache.ts).
import { build } from "esbuild"
import { spawn } from "node:child_process"
import { chmodSync, readFileSync, rmSync } from "node:fs"
import { request } from "node:http"

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
  "pg-cursor": { defaultClass: true },
  // @effect/platform-node's server makes its WebSocketServer on the first upgrade only; the mock
  // never upgrades, yet loading ws (with tls, https and zlib) at start was 7 ms of it.
  ws: { classes: ["WebSocket", "WebSocketServer"] },
  // @effect/platform-node's file responses look a Content-Type up in mime, whose tables of about
  // 1,000 types were built at start; the mock serves no file.
  mime: { default: true }
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

/**
 * better-sqlite3 is not bundled: the mock runs on Node's own `node:sqlite` where Node has one (22.13+,
 * 24+), and better-sqlite3 is an optional peer that a project on Node 20 (or choosing it) installs;
 * the mock requires it at run time, from the installed package, only when it is the driver
 * (SqliteDriver.ts). Bundled, its JavaScript would have had to match whatever addon the project
 * installed.
 */
rmSync("dist", { recursive: true, force: true })
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  // V8 scans every byte of a script when it compiles it: without comments and blank space the
  // bundle is 30% smaller and compiles in about a third of the time (when there is no code cache
  // yet). Names are kept (stack traces, class names in logged defects).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "linked",
  logLevel: "warning"
}
// The command line as one CommonJS bundle: the bin runs it through vm.Script, which takes V8's code
// cache (Node 20 offers none for ES modules). import.meta.url becomes the bundle's own file URL.
// The file is already wrapped as Node wraps a CommonJS module (CodeCache.ts's MODULE_WRAPPER): the
// bin compiles it as read, where wrapping it at run time made V8 copy the whole source once more.
const [wrapperStart, wrapperEnd] = JSON.parse(
  /MODULE_WRAPPER = (\[.*\]) as const/.exec(readFileSync("src/CodeCache.ts", "utf8"))[1]
)
await build({
  ...common,
  entryPoints: ["src/Main.ts"],
  outfile: "dist/main.cjs",
  format: "cjs",
  plugins: [lazyCommonJsPlugin],
  external: ["better-sqlite3"],
  define: { "import.meta.url": "__pcImportMetaUrl" },
  banner: { js: `${wrapperStart}var __pcImportMetaUrl = require("node:url").pathToFileURL(__filename).href;` },
  footer: { js: wrapperEnd },
  // Licence comments go to main.cjs.LEGAL.txt with no link comment after the wrapper's end.
  legalComments: "external"
})
// A vm.Script has no module loader for `import()` (the code cache needs vm.Script): require instead.
if (readFileSync("dist/main.cjs", "utf8").includes("import(")) {
  throw new Error("dist/main.cjs calls import(), which fails when the bin runs it from the code cache: use require")
}
// bin.js: the few lines that run first (Launchers.ts reads the launcher chain as it loads), then the
// command line from the code cache.
await build({ ...common, entryPoints: ["src/bin.ts"], outfile: "dist/bin.js", format: "esm" })
chmodSync("dist/bin.js", 0o755)

/**
 * Starts the built `pc mock` on :memory:, answers one /healthz, and stops it with SIGTERM: the
 * bundle's smoke test, and the run whose exit writes the code cache with every function a start
 * and a first request compile. Rejects if it does not get there within two minutes.
 */
const firstStart = () =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["dist/bin.js", "mock", "--env", "production", "--port", "0", "--db", ":memory:"],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NODE_OPTIONS: "" }
      }
    )
    let output = ""
    let asked = false
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
    const collect = (chunk) => {
      output += chunk
      const listening = /listening on (http:\/\/[^\s]+)/.exec(output)
      if (listening === null || asked) return
      asked = true
      request(`${listening[1]}/healthz`, (response) => {
        response.resume()
        response.once("end", () => child.kill("SIGTERM"))
      })
        .once("error", () => child.kill("SIGTERM"))
        .end()
    }
    child.stdout.on("data", collect)
    child.stderr.on("data", collect)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      if (asked && code === 0) resolve()
      else reject(new Error(`the built pc mock did not start and stop (exit ${code ?? signal}):\n${output}`))
    })
  })
await firstStart()
