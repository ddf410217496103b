/**
 * Runs the command line's CommonJS bundle with V8's code cache. Compiling the bundle and then
 * each function on its first call was about a third of `pc mock`'s start; with the cache, V8 reads
 * the compiled code back instead. Node 20 caches nothing itself (`module.enableCompileCache` came
 * in Node 22, and only for files it loads), so the bin does it the way `v8-compile-cache` did.
 */
import { createHash } from "node:crypto"
import { readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { Script } from "node:vm"

/**
 * Where the cache of `bundleFile` lives for this Node: next to the bundle, never in a shared folder
 * (a cache is compiled code: whoever can write it can run code as the user, so it may only sit
 * where the bundle itself could be changed). Its name holds a hash of everything V8 checks a cache
 * against (Node and V8 version, architecture, V8 flags from the command line and NODE_OPTIONS) and
 * of the bundle file's identity: device, inode, size, and modification and change times to the
 * nanosecond. V8 itself compares only the source's length, so a changed bundle of the same length
 * must never find the old cache: every write to the file sets its change time, which no process
 * can set back. Known before the bundle is read (hashing the whole bundle took 5 ms), so the cache
 * can be read meanwhile.
 */
const cacheFileOf = (bundleFile: string): string => {
  const file = statSync(bundleFile, { bigint: true })
  const key = createHash("sha256")
    .update(
      JSON.stringify([
        [file.dev, file.ino, file.size, file.mtimeNs, file.ctimeNs].map(String),
        process.version,
        process.arch,
        process.versions.v8,
        process.execArgv,
        process.env.NODE_OPTIONS ?? ""
      ])
    )
    .digest("hex")
    .slice(0, 16)
  return `${bundleFile}.${key}.v8cache`
}

/**
 * Writes the cache beside the bundle through a temporary file and a rename, so that a process
 * reading it never sees half of it and processes writing together leave one whole file. A folder
 * that is not writable (a read-only install) just means no cache.
 */
const writeCache = (file: string, script: Script): void => {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, script.createCachedData())
    renameSync(temporary, file)
  } catch {
    try {
      unlinkSync(temporary)
    } catch {
      // Nothing was written.
    }
  }
}

/**
 * How the bundle file begins and ends: a CommonJS module body wrapped as Node wraps one, so that the
 * file is compiled as read (build.mjs writes it so; wrapping a 1.4 MB string at run time made V8
 * copy it once more, 350 page faults).
 */
export const MODULE_WRAPPER = ["(function (exports, require, module, __filename, __dirname) {", "\n})"] as const

/**
 * Runs the CommonJS bundle `bundleFile` as Node runs a CommonJS module, from V8's code cache when
 * there is a valid one. Without one (the first run, another Node, a new build), the cache is
 * written when the process exits: by then it holds every function the command compiled, not only
 * the bundle's top level. A cache V8 refuses is ignored and replaced; nothing fails for want of it.
 * Rejects with whatever the bundle throws while it loads, and with an Error for a file that is
 * not wrapped as {@link MODULE_WRAPPER} says.
 *
 * @example
 * ```ts
 * await runBundle(fileURLToPath(new URL("./main.cjs", import.meta.url)))
 * ```
 */
export const runBundle = async (bundleFile: string): Promise<void> => {
  const cacheFile = cacheFileOf(bundleFile)
  // The cache (1.7 MB) is read on the thread pool while this thread reads and decodes the bundle.
  const reading = readFile(cacheFile).catch((): undefined => undefined)
  const source = readFileSync(bundleFile, "utf8")
  if (!source.startsWith(MODULE_WRAPPER[0])) {
    throw new Error(`${bundleFile} is not a wrapped CommonJS module: build it with apps/cli/build.mjs`)
  }
  const cachedData = await reading
  const script = new Script(source, {
    filename: bundleFile,
    // No importModuleDynamically: the bundle has no `import()` (build.mjs refuses one), which
    // Node 20 would serve only through an experimental loader that prints a warning.
    ...(cachedData === undefined ? {} : { cachedData })
  })
  if (cachedData === undefined || script.cachedDataRejected === true) {
    process.once("exit", () => writeCache(cacheFile, script))
  }
  const module = { exports: {} }
  const run = script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void
  run(module.exports, createRequire(bundleFile), module, bundleFile, dirname(bundleFile))
}
