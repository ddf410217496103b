/**
 * Scalar's API reference bundle, as `@effect/platform` ships it inline (HttpApiScalar), so that
 * `/docs` needs nothing from outside the machine. `HttpApiScalar.layer` would serve it only with
 * its own page (no `servers`, no link to /openapi.json, fonts from a CDN), so the bundle is read
 * from the installed package's internal module: its path is pinned by the @effect/platform version.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

let bundle: Promise<string> | undefined

/**
 * The bundle's JavaScript, loaded once.
 *
 * @example
 * ```ts
 * const script = await scalarBundle()
 * ```
 */
export const scalarBundle = (): Promise<string> => {
  // Required, not imported: the resolution lands in the package's CommonJS build, and `pc` runs
  // the mock from a vm.Script (its code cache), where `import()` has no loader.
  bundle ??= new Promise((resolve) => {
    const require = createRequire(import.meta.url)
    const internal = join(dirname(require.resolve("@effect/platform/HttpApiScalar")), "internal", "httpApiScalar.js")
    resolve((require(internal) as { readonly javascript: string }).javascript)
  })
  return bundle
}
