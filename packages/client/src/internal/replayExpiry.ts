// How long every replay guard keeps a delivery, and the checks on its options: one rule for the
// in-memory, SQL and Redis guards.
import * as Timestamp from "@pc/core/Timestamp"

/** The default time an entry is kept after it arrived: twice the 5 minute window. */
export const DEFAULT_TTL_MS = 2 * Timestamp.WINDOW_MS

/** Why `ttlMs` is refused, or undefined when it is valid. */
export const invalidTtl = (ttlMs: number): string | undefined =>
  ttlMs >= Timestamp.WINDOW_MS && Number.isFinite(ttlMs)
    ? undefined
    : `ttlMs must be at least the ${Timestamp.WINDOW_MS} ms window, or replays could pass after expiry`

/**
 * When a delivery may be forgotten: `ttlMs` after it arrived, and never before its timestamp leaves
 * the window (a timestamp ahead of this clock stays valid for longer).
 */
export const keepUntil = (entry: { readonly receivedAt: number; readonly expiresAt: number }, ttlMs: number): number =>
  Math.max(entry.expiresAt, entry.receivedAt + ttlMs)

/** A random claim token, 32 hex characters, to tell which of racing writers stored a row. */
export const randomClaim = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
}

/** SHA-256 of a delivery key, hex: a fixed-width primary key whatever the eventId's length. */
export const keyDigest = async (key: string): Promise<string> => {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)))
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")
}
