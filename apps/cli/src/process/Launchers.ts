/**
 * Which processes launched this one, and whether they are still there. `npx pnpm mock &` is a chain
 * (npm exec, sh, pnpm, node): `kill` of the outer npm ends it and its `sh`, but `sh` passes nothing
 * on, so pnpm and the mock would live on, re-parented, holding the port. A long-running command
 * watches its launchers and stops as on SIGTERM when one of them is gone.
 */
import { readFileSync } from "node:fs"

/** A process by id and start time: a pid that is reused later is another process. */
export interface Launcher {
  readonly pid: number
  readonly startedAt: string
  /** The command name as /proc has it (`npm exec`, `pnpm`, `sh`), for saying which one went away. */
  readonly name: string
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
const statFields = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

const commandName = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim()
  } catch {
    return ""
  }
}

const launcher = (pid: number): Launcher | undefined => {
  const fields = statFields(pid)
  // After the name: state (0), ppid (1), ..., starttime (19).
  return fields === undefined ? undefined : { pid, startedAt: fields[19] ?? "", name: commandName(pid) }
}

const parentOf = (pid: number): number | undefined => {
  const ppid = Number(statFields(pid)?.[1])
  return Number.isSafeInteger(ppid) && ppid > 1 ? ppid : undefined
}

/**
 * This process's ancestors, nearest first, up to (not including) init. Where /proc is missing (not
 * Linux) only the parent, known from `process.ppid`.
 */
export const launchers = (): ReadonlyArray<Launcher> => {
  if (statFields(process.pid) === undefined) return [{ pid: process.ppid, startedAt: "", name: "" }]
  const chain: Array<Launcher> = []
  for (let pid = parentOf(process.pid); pid !== undefined && chain.length < 32; pid = parentOf(pid)) {
    const found = launcher(pid)
    if (found === undefined) break
    chain.push(found)
  }
  return chain
}

/**
 * The launchers as {@link recordLaunchersAtStart} found them. Kept on the global object: the bin and
 * the command line it runs are two bundles (see build.mjs), each with its own copy of this module.
 */
const AT_START = Symbol.for("@pc/cli/launchersAtStart")
const recorded = globalThis as { [AT_START]?: ReadonlyArray<Launcher> }

/**
 * Reads the launcher chain now, at the start of the process (the bin calls it before it loads the
 * command line). The watch begins only once the mock listens, seconds later on a loaded machine: a
 * launcher that ended before then (`kill` during start-up, or right after the ready line) is missing
 * from a chain read at that point, so nothing would ever stop the mock. Read at the start, its end is
 * seen at the watch's first check.
 *
 * @example
 * ```ts
 * recordLaunchersAtStart()
 * runBundle(mainBundleFile)
 * ```
 */
export const recordLaunchersAtStart = (): void => {
  recorded[AT_START] ??= launchers()
}

/** Whether a launcher recorded by {@link launchers} has ended (or its pid now names another process). */
export const isGone = (recorded: Launcher): boolean => {
  if (recorded.startedAt === "") return process.ppid !== recorded.pid
  return launcher(recorded.pid)?.startedAt !== recorded.startedAt
}

/**
 * Calls `onGone` once with the launcher that went away, soon after any process that launched this
 * one (as of the process's start) has ended, also one that ended before the call. Returns a function
 * that stops watching. The check runs on an unref'd timer: it never keeps the process alive.
 *
 * @example
 * ```ts
 * const stopWatching = whenLaunchersGone(() => process.kill(process.pid, "SIGTERM"))
 * ```
 */
export const whenLaunchersGone = (onGone: (gone: Launcher) => void, intervalMs = 250): (() => void) => {
  const chain = recorded[AT_START] ?? launchers()
  const timer = setInterval(() => {
    const gone = chain.find(isGone)
    if (gone !== undefined) {
      clearInterval(timer)
      onGone(gone)
    }
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
