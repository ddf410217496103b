// Waiting for something another process (or a server in this one) does: polled, with a limit that
// names what did not happen.

/** How {@link until} polls: the limit (60 s) and the pause between probes (50 ms). */
export interface PollOptions {
  readonly timeoutMs?: number
  readonly intervalMs?: number
}

/**
 * Calls `probe` every `intervalMs` until it gives a value other than undefined, and resolves that
 * value; rejects with "timed out after N ms waiting for `what`" after `timeoutMs`, or with whatever
 * `probe` throws.
 *
 * @example
 * ```ts
 * const line = await until(() => output().match(/listening on (\S+)/)?.[1], "the ready line", { timeoutMs: 10_000 })
 * ```
 */
export const until = async <A>(
  probe: () => A | undefined | Promise<A | undefined>,
  what: string,
  { timeoutMs = 60_000, intervalMs = 50 }: PollOptions = {}
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
