/**
 * Scalar's API reference bundle, as `@effect/platform` ships it inline (HttpApiScalar), so that
 * `/docs` needs nothing from outside the machine. `HttpApiScalar.layer` would serve it only with
 * its own page (no `servers`, no link to /openapi.json, fonts from a CDN), so the bundle is read
 * from the installed package's internal module: its path is pinned by the @effect/platform version.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"

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
  bundle ??= (async () => {
    const entry = createRequire(import.meta.url).resolve("@effect/platform/HttpApiScalar")
    const internal = join(dirname(entry), "internal", "httpApiScalar.js")
    const module = (await import(pathToFileURL(internal).href)) as { readonly javascript: string }
    return module.javascript
  })()
  return bundle
}
