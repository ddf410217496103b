// SQLite's WAL checkpoints with their long fsync off the event loop. In WAL mode with
// synchronous=NORMAL a commit writes to the WAL without an fsync; the cost comes at the checkpoint
// that copies the WAL into the database file: SQLite fsyncs the WAL, then the file, in whichever
// commit takes the WAL past 1,000 pages, with every other request waiting. The WAL's fsync is the
// long one (measured here: 10-16 ms for 1,000 pages against 1 ms for the file's), so it is done
// first on the thread pool, and SQLite's own fsync in the checkpoint then finds little left to write.
import type Sqlite from "better-sqlite3"
import { Duration, Effect, Schedule, type Scope } from "effect"
import { closeSync, fdatasync, openSync } from "node:fs"

/** How often the WAL is checkpointed while something is written. */
const INTERVAL = Duration.millis(100)

/**
 * Checkpoints the WAL of `db` (the SQLite file `filename`, in WAL mode) every {@link INTERVAL} while
 * anything was written since the last one: the WAL's fsync first, on the thread pool, then SQLite's
 * PASSIVE checkpoint. A checkpoint waits while `idle()` is false (a transaction holds the
 * connection) and runs on a later round. A failed round is logged and tried again; SQLite's own
 * automatic checkpoint (`PRAGMA wal_autocheckpoint`) stays the backstop. Stops with the scope; the
 * caller closes `db` after.
 *
 * @example
 * ```ts
 * yield* WalCheckpoints.inBackground(db, "./mock.sqlite", () => transactions === 0)
 * ```
 */
export const inBackground = (
  db: Sqlite.Database,
  filename: string,
  idle: () => boolean
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Rows changed by this connection since it opened: a write since the last checkpoint moves it.
    const totalChanges = db.prepare("SELECT total_changes()").pluck()
    let checkpointedAt = 0
    let wal: number | undefined
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (wal !== undefined) closeSync(wal)
        wal = undefined
      })
    )
    const openWal = (): number | undefined => {
      if (wal === undefined) {
        try {
          // Any descriptor of the file will do: fdatasync writes the file's dirty pages, whoever wrote them.
          wal = openSync(`${filename}-wal`, "r")
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
        }
      }
      return wal
    }
    const syncWal = (fd: number) =>
      Effect.async<void, NodeJS.ErrnoException>((resume) => {
        fdatasync(fd, (error) => resume(error === null ? Effect.void : Effect.fail(error)))
      })

    const round = Effect.gen(function* () {
      if (!idle() || totalChanges.get() === checkpointedAt) return
      const fd = yield* Effect.try(openWal)
      if (fd === undefined) return
      yield* syncWal(fd)
      // The connection may have been taken by a transaction meanwhile: the next round checkpoints.
      if (!idle()) return
      checkpointedAt = totalChanges.get() as number
      yield* Effect.try(() => db.pragma("wal_checkpoint(PASSIVE)"))
    }).pipe(
      Effect.catchAll((error) =>
        Effect.logWarning(
          `background WAL checkpoint failed (${String(error)}); it is tried again, and SQLite checkpoints by itself past wal_autocheckpoint`
        )
      )
    )
    yield* Effect.forkScoped(Effect.repeat(round, Schedule.spaced(INTERVAL)))
  })
