// Which runtime this code runs in, told by the runtime itself, so a test can tell that a bundle ran
// where it was sent (and not in the Node that launched it).
declare const Bun: { readonly version: string } | undefined
declare const Deno: { readonly version: { readonly deno: string } } | undefined

/** `bun <version>`, `deno <version>`, `workerd` (it does not tell its version), or `node <version>`. */
export const runtimeHere = (): string => {
  if (typeof Bun !== "undefined") return `bun ${Bun.version}`
  if (typeof Deno !== "undefined") return `deno ${Deno.version.deno}`
  if (typeof navigator !== "undefined" && navigator.userAgent === "Cloudflare-Workers") return "workerd"
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node
  return node === undefined ? "unknown" : `node ${node}`
}
