// `prepack` of every public package: a package is never packed without its build. Builds with the
// package's tsconfig.build.json when dist/ is missing or older than any source file, and skips the
// build otherwise (publint and attw pack each package again; a fresh build needs no second tsc).
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]
  )

const mtimes = (paths) => paths.map((path) => statSync(path).mtimeMs)

const sources = [...files("src"), ...["tsconfig.build.json", "build.mjs"].filter((file) => existsSync(file))]
const built = existsSync("dist") ? files("dist") : []
// Stale: nothing built, a source newer than the build, or a module without its output (tsc packages).
const missing = existsSync("build.mjs")
  ? []
  : files("src").filter(
      (file) => file.endsWith(".ts") && !existsSync(file.replace(/^src/, "dist").replace(/\.ts$/, ".js"))
    )
const stale = built.length === 0 || missing.length > 0 || Math.max(...mtimes(sources)) > Math.min(...mtimes(built))

if (stale) {
  // The package's own build: tsc, or a build.mjs where the package has one (pc's bundle).
  console.error(`prepack: building ${process.cwd()}`)
  if (existsSync("build.mjs")) {
    execFileSync(process.execPath, ["build.mjs"], { stdio: "inherit" })
  } else {
    const tsc = createRequire(join(process.cwd(), "package.json")).resolve("typescript/bin/tsc")
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" })
  }
}
if (!existsSync("dist") || files("dist").length === 0) {
  console.error("prepack: dist/ is empty after the build; refusing to pack")
  process.exit(1)
}
