// What a profiled mock writes on its second signal (a CPU or heap profile, the SQL timing) appears
// a moment later: its writer renames a whole file into place, so the reader only waits for it.
import { existsSync } from "node:fs"

/**
 * Waits up to 30 s for `file` to exist; throws "the mock wrote no <what>" if it never does.
 *
 * @example
 * ```ts
 * await waitForFile(join(dir, "mock.cpuprofile"), "CPU profile")
 * ```
 */
export const waitForFile = async (file: string, what: string): Promise<void> => {
  for (let waited = 0; !existsSync(file) && waited < 30_000; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100))
  if (!existsSync(file)) throw new Error(`the mock wrote no ${what}`)
}
