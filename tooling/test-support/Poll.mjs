// Waiting for something another process does: polled, with a limit that names what did not happen.

/**
 * Calls `probe` every `intervalMs` until it gives a value other than undefined, and resolves that
 * value; rejects with "`what` within N ms" after `timeoutMs`, or with whatever `probe` throws.
 */
export const until = async (probe, what, { timeoutMs = 60_000, intervalMs = 50 } = {}) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
