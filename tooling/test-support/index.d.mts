import type { ChildProcess } from "node:child_process"

/** A port that is free on 127.0.0.1 now (the OS picks it for a probe that closes at once). */
export declare const freePort: () => Promise<number>
/** Whether something accepts connections on 127.0.0.1:`port` now (a silent peer counts as no after 1 s). */
export declare const accepting: (port: number) => Promise<boolean>

/**
 * Calls `probe` every `intervalMs` (50) until it gives a value other than undefined, and resolves
 * that value; rejects with "`what` within N ms" after `timeoutMs` (60 s), or with what `probe` throws.
 */
export declare const until: <A>(
  probe: () => A | undefined | Promise<A | undefined>,
  what: string,
  options?: { readonly timeoutMs?: number; readonly intervalMs?: number }
) => Promise<A>

/** How a command is started: its folder, its whole environment (default `process.env`), its standard input. */
export interface StartOptions {
  readonly cwd?: string
  readonly env?: NodeJS.ProcessEnv
  /** Written to standard input, which is then closed; without it standard input is /dev/null. */
  readonly input?: string
}

/** What a finished command printed and how it ended. */
export interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to its end in its own process group; after `timeoutMs` (120 s) the group is killed. */
export declare const run: (
  command: string,
  args: ReadonlyArray<string>,
  options?: StartOptions & { readonly timeoutMs?: number }
) => Promise<Finished>
/** Runs a command that must exit 0; rejects with its output otherwise. */
export declare const ok: typeof run

/** A long-running command (a server) in its own process group. */
export interface Running {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** stdout then stderr, so far. */
  readonly output: () => string
  /** Resolves with its exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>
  /** Resolves with the first complete stdout line `match` accepts; rejects if it exits first. */
  readonly waitForLine: (match: (line: string) => boolean, what: string) => Promise<string>
  /** Resolves with the first match of `pattern` in its output; rejects if it exits first. */
  readonly waitForOutput: (pattern: RegExp, what: string) => Promise<RegExpExecArray>
  /** Sends `signal` (SIGTERM) to its whole group; false when the group is gone. */
  readonly kill: (signal?: NodeJS.Signals) => boolean
}

/** Starts a long-running command in its own process group; `killAll()` ends it if nothing else does. */
export declare const background: (command: string, args: ReadonlyArray<string>, options?: StartOptions) => Running

/** Kills (SIGKILL) every process group started by `run` or `background` that is still there. */
export declare const killAll: () => void

/** A fenced block after a marker comment: `<!-- marker -->` then ```lang. */
export interface MarkedBlock {
  readonly marker: string
  readonly lang: string
  /** The block's text, with its final newline. */
  readonly code: string
}

/** Every fenced block that follows a marker comment, in order. */
export declare const markedBlocks: (markdown: string) => ReadonlyArray<MarkedBlock>
/** The blocks marked `<!-- kind: name -->`, in order, with their names. */
export declare const blocksOf: (
  markdown: string,
  kind: string
) => ReadonlyArray<{ readonly name: string; readonly lang: string; readonly code: string }>
/** The code of the one block after `<!-- marker -->`; throws when there is none or more than one. */
export declare const blockAfter: (markdown: string, marker: string) => string
/** The package names of the first `npm i ...` line (flags and a trailing comment left out). */
export declare const npmInstallNames: (markdown: string) => ReadonlyArray<string>

/**
 * `process.env` without the variables a workspace runner sets (npm_*, PNPM_*, TURBO_*, VITEST*, NODE_OPTIONS),
 * a Node with node:sqlite first on the PATH (Node 24 from npm when this Node has none), npm kept quiet, then `extra`.
 */
export declare const merchantEnv: (extra?: Readonly<Record<string, string>>) => NodeJS.ProcessEnv
/** A fresh `npm init -y` project in a new temp folder named `prefix...` (the caller removes it). */
export declare const npmProject: (prefix: string, env?: NodeJS.ProcessEnv) => Promise<string>

/** Public package name -> its folder relative to the workspace root `root` (packages/* and apps/* not private). */
export declare const publicPackages: (root: string) => Readonly<Record<string, string>>
