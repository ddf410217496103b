// SQLite's WAL checkpoints with their long fsync off the event loop. In WAL mode with
// synchronous=NORMAL a commit writes to the WAL without an fsync; the cost comes at the checkpoint
// that copies the WAL into the database file: SQLite fsyncs the WAL, then the file, in whichever
// commit takes the WAL past 1,000 pages, with every other request waiting. The WAL's fsync is the
// long one (measured here: 10-16 ms for 1,000 pages against 1 ms for the file's), so it is done
// first on the thread pool, and SQLite's own fsync in the checkpoint then finds little left to write.
import type Sqlite from "better-sqlite3"
import { Duration, Effect, Schedule, type Scope } from "effect"
import { closeSync, fdatasync, openSync } from "node:fs"

/** How often the background looks at what was written. */
const INTERVAL = Duration.millis(100)

/**
 * Rows changed since the last checkpoint before the next one: about 500 WAL pages of orders (a new
 * order writes its row and four index entries). Fewer are left in the WAL, as SQLite leaves them
 * below its 1,000 pages: each checkpoint still costs two short fsyncs on the event loop, and one
 * more in the next commit (the WAL's restart), so checkpointing every few writes made a mock at
 * light load pay 1-7 ms per write instead of 0.1 ms.
 */
const MIN_CHANGES = 100

/** A failing round is logged at most this often. */
const WARN_EVERY_MS = 60_000

/**
 * Checkpoints the WAL of `db` (a SQLite file in WAL mode, its lock held) in the background once
 * {@link MIN_CHANGES} rows were written since the last checkpoint, looking every {@link INTERVAL}:
 * the WAL's fsync first, on the thread pool, then SQLite's PASSIVE checkpoint, while `idle()` says
 * no transaction holds the connection (otherwise on a later round). A failed round is logged and
 * tried again; SQLite's own automatic checkpoint (`PRAGMA wal_autocheckpoint`, the caller's) stays
 * the backstop. Stops with the scope, before the caller closes `db`.
 *
 * @example
 * ```ts
 * yield* WalCheckpoints.inBackground(db, () => transactions === 0)
 * ```
 */
export const inBackground = (db: Sqlite.Database, idle: () => boolean): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Rows changed by this connection since it opened: a write since the last checkpoint moves it.
    const totalChanges = db.prepare("SELECT total_changes()").pluck()
    // Where SQLite keeps the WAL: beside the file it opened, symbolic links resolved.
    const main = (db.pragma("database_list") as ReadonlyArray<{ name: string; file: string }>).find(
      (entry) => entry.name === "main"
    )
    const walFile = `${main?.file ?? db.name}-wal`
    let checkpointedAt = totalChanges.get() as number
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
      const written = (yield* attempt(() => totalChanges.get() as number)) - checkpointedAt
      if (written < MIN_CHANGES) return
      // Only a head start for SQLite's own fsync: if it fails, the checkpoint still runs and syncs.
      yield* Effect.flatMap(attempt(openWal), syncWal).pipe(Effect.catchAll((error) => warn("the WAL's fsync", error)))
      // The connection may have been taken by a transaction meanwhile: a later round checkpoints.
      if (!idle()) return
      const changes = yield* attempt(() => totalChanges.get() as number)
      yield* attempt(() => db.pragma("wal_checkpoint(PASSIVE)"))
      checkpointedAt = changes
    }).pipe(Effect.catchAll((error) => warn("a round", error)))
    yield* Effect.forkScoped(Effect.repeat(round, Schedule.spaced(INTERVAL)))
  })
