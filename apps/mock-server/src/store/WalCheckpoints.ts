// SQLite's WAL checkpoints with their long fsync off the event loop. In WAL mode with
// synchronous=NORMAL a commit writes to the WAL without an fsync; the cost comes at the checkpoint
// that copies the WAL into the database file: SQLite fsyncs the WAL, then the file, in whichever
// commit takes the WAL past 1,000 pages, with every other request waiting. The WAL's fsync is the
// long one (it grows with the pages written, the file's does not), so it is done
// first on the thread pool, and SQLite's own fsync in the checkpoint then finds little left to write.
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { closeSync, fdatasync, openSync } from "node:fs"
import type { SqliteDatabase } from "./SqliteDriver.js"

/** How often the background looks at what was written. */
const INTERVAL = Duration.millis(100)

/**
 * WAL pages between two checkpoints: SQLite's own cadence. Each checkpoint still costs two short
 * fsyncs on the event loop, and one more in the next commit (the WAL's restart), so checkpointing
 * more often costs more than it saves (bench/RESULTS.md, "Mock server: figures behind its comments").
 */
const PAGES_PER_CHECKPOINT = 1_000

/**
 * Rows written since the last checkpoint before the next one, until a checkpoint has measured how
 * many pages a row takes here: about 500 pages of new orders (a row and four index entries each).
 */
const FIRST_ROWS = 100

/** A failing round is logged at most this often. */
const WARN_EVERY_MS = 60_000

/** What `PRAGMA wal_checkpoint` answers: `log` is the WAL's pages (frames) when it ran. */
interface CheckpointResult {
  readonly busy: number
  readonly log: number
  readonly checkpointed: number
}

/**
 * Checkpoints the WAL of `db` (a SQLite file in WAL mode, its lock held) in the background after
 * about {@link PAGES_PER_CHECKPOINT} pages, counted in rows written (how many pages a row takes is
 * learnt from each checkpoint, {@link FIRST_ROWS} rows at first), looking every {@link INTERVAL}:
 * the WAL's fsync first, on the thread pool, then SQLite's PASSIVE checkpoint, while `idle()` says
 * no transaction holds the connection (otherwise on a later round). A failed round is logged and
 * tried again; SQLite's own automatic checkpoint (`PRAGMA wal_autocheckpoint`, the caller's) stays
 * the backstop. Stops with the scope, before the caller closes `db`.
 *
 * @example
 * ```ts
 * yield* WalCheckpoints.inBackground(db, "./mock.sqlite", () => transactions === 0)
 * ```
 */
export const inBackground = (
  db: SqliteDatabase,
  filename: string,
  idle: () => boolean,
  /**
   * Waits for the end of a transaction that holds the connection only briefly (the group
   * transaction of a turn of the event loop): the fsync ends in the turn where new orders open
   * one, and a round that gave up then never checkpointed under a stream of new orders.
   */
  briefHold: Effect.Effect<void> = Effect.void
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Rows changed by this connection since it opened: a write since the last checkpoint moves it.
    const changesStatement = db.prepare("SELECT total_changes() AS changes")
    const totalChanges = () => Number((changesStatement.all([])[0] as { changes: number | bigint }).changes)
    const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)")
    // Where SQLite keeps the WAL: beside the file it opened, symbolic links resolved.
    const main = (db.prepare("PRAGMA database_list").all([]) as ReadonlyArray<{ name: string; file: string }>).find(
      (entry) => entry.name === "main"
    )
    const walFile = `${main?.file ?? filename}-wal`
    let checkpointedAt = totalChanges()
    let rowsPerCheckpoint = FIRST_ROWS
    let wal: number | undefined
    let warnedAtMs = Number.NEGATIVE_INFINITY
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (wal !== undefined) closeSync(wal)
        wal = undefined
      })
    )
    const attempt = <A>(run: () => A) => Effect.try({ try: run, catch: (error) => error })
    // Writable: Windows refuses to flush a file opened for reading only. No create, no truncate.
    const openWal = () => {
      wal ??= openSync(walFile, "r+")
      return wal
    }
    // Uninterruptible: at a stop the descriptor is closed after the fsync that uses it ends.
    const syncWal = (fd: number) =>
      Effect.uninterruptible(
        Effect.async<void, unknown>((resume) => {
          fdatasync(fd, (error) => resume(error === null ? Effect.void : Effect.fail(error)))
        })
      )
    const warn = (what: string, error: unknown) =>
      Effect.suspend(() => {
        const nowMs = Date.now()
        if (nowMs - warnedAtMs < WARN_EVERY_MS) return Effect.void
        warnedAtMs = nowMs
        return Effect.logWarning(
          `background WAL checkpoint: ${what} failed (${String(error)}); SQLite checkpoints by itself past wal_autocheckpoint`
        )
      })

    const round = Effect.gen(function* () {
      if (!idle()) return
      const written = (yield* attempt(totalChanges)) - checkpointedAt
      if (written < rowsPerCheckpoint) return
      // Only a head start for SQLite's own fsync: if it fails, the checkpoint still runs and syncs.
      yield* Effect.flatMap(attempt(openWal), syncWal).pipe(Effect.catchAll((error) => warn("the WAL's fsync", error)))
      // The connection may have been taken by a transaction meanwhile: a later round checkpoints.
      yield* briefHold
      if (!idle()) return
      const changes = yield* attempt(totalChanges)
      const [result] = (yield* attempt(() => checkpoint.all([]))) as ReadonlyArray<CheckpointResult>
      // Rows for the next one from this one's rows per page, within bounds a stray result cannot move far.
      const rows = changes - checkpointedAt
      if (result !== undefined && result.log > 0 && rows > 0) {
        rowsPerCheckpoint = Math.min(10_000, Math.max(10, Math.round((rows * PAGES_PER_CHECKPOINT) / result.log)))
      }
      checkpointedAt = changes
    }).pipe(Effect.catchAll((error) => warn("a round", error)))
    yield* Effect.forkScoped(Effect.repeat(round, Schedule.spaced(INTERVAL)))
  })
