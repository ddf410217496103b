// Which SQLite library the mock's connection (SqliteConnection.ts) runs on. Node 22.13+ and 24+ ship
// `node:sqlite`, which needs no native addon: installing the mock there compiles and downloads
// nothing, and pnpm 10's and Bun's blocked install scripts cannot leave it without a database.
// better-sqlite3 stays for Node 20 (no `node:sqlite`) or by choice: an optional peer dependency,
// required only when it is the driver, so a project that never uses it need not have it. Both
// drivers read and write the same file format: a database written under one opens under the other.
import { createRequire } from "node:module"

/** The SQLite libraries the mock runs on. */
export type DriverName = "node:sqlite" | "better-sqlite3"

/** The environment variable that picks a driver instead of the default. */
export const DRIVER_VARIABLE = "PC_MOCK_SQLITE_DRIVER"

/** One prepared statement, whichever the driver. */
export interface SqliteStatement {
  /** Whether the statement returns rows (a SELECT, a PRAGMA that answers, a RETURNING). */
  readonly reader: boolean
  /** Its rows as objects by column name (`[]` for a statement without rows, which still runs). */
  readonly all: (params: ReadonlyArray<unknown>) => ReadonlyArray<unknown>
  /** Runs it for its effect: rows changed and the last row id inserted. */
  readonly run: (params: ReadonlyArray<unknown>) => { readonly changes: number | bigint }
  /** Its rows as arrays of column values, in column order. */
  readonly values: (params: ReadonlyArray<unknown>) => ReadonlyArray<ReadonlyArray<unknown>>
}

/** One open SQLite connection, whichever the driver. */
export interface SqliteDatabase {
  readonly driver: DriverName
  /** Prepares `sql`; throws the driver's error for SQL it cannot prepare. */
  readonly prepare: (sql: string) => SqliteStatement
  /** Whether a transaction is open on the connection (SQLite's autocommit is off). */
  readonly inTransaction: () => boolean
  readonly close: () => void
}

/** The error when the chosen driver cannot be loaded: it says what to install or which Node to use. */
export class DriverUnavailable extends Error {
  constructor(driver: DriverName, cause: unknown) {
    super(
      driver === "node:sqlite"
        ? `node:sqlite is not available in Node ${process.versions.node} (it needs Node 22.13+ or 24+): run the mock on a newer Node, or install better-sqlite3 beside it`
        : `better-sqlite3 is not installed (the mock needs it on Node ${process.versions.node}, which has no node:sqlite): add it to your project (npm install better-sqlite3), and with pnpm or Bun allow its install script`,
      { cause }
    )
    this.name = "DriverUnavailable"
  }
}

/** `node:sqlite`'s surface that the mock uses, typed here since @types/node 20 has none of it. */
interface NodeStatementSync {
  all(...params: ReadonlyArray<unknown>): Array<unknown>
  run(...params: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint }
  columns?: () => ReadonlyArray<unknown>
  setReturnArrays?: (enabled: boolean) => void
}
interface NodeDatabaseSync {
  prepare(sql: string): NodeStatementSync
  close(): void
  readonly isTransaction?: boolean
}
interface NodeSqlite {
  DatabaseSync: new (path: string) => NodeDatabaseSync
}

/** better-sqlite3's surface that the mock uses, typed here so its types are needed only by its tests. */
interface BetterStatement {
  readonly reader: boolean
  all(...params: ReadonlyArray<unknown>): Array<unknown>
  run(...params: ReadonlyArray<unknown>): { changes: number; lastInsertRowid: number | bigint }
  raw(enabled: boolean): BetterStatement
}
interface BetterDatabase {
  prepare(sql: string): BetterStatement
  close(): void
  readonly inTransaction: boolean
}

/**
 * `node:sqlite` when this Node has it, else `undefined`. Node 24 prints an ExperimentalWarning when
 * it is first loaded (22.13 and later 22s do not); the mock uses only the part stable since 22.13,
 * so that one warning is dropped instead of being every `pc mock`'s first line.
 */
const loadNodeSqlite = (): NodeSqlite | undefined => {
  const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule
  if (getBuiltinModule === undefined) return undefined
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: Array<never>) => {
    const text = typeof warning === "string" ? warning : warning.message
    const type: unknown = rest[0]
    const kind = typeof type === "object" && type !== null && "type" in type ? type.type : type
    if (kind === "ExperimentalWarning" && /^SQLite\b/.test(text)) return
    emitWarning.call(process, warning, ...rest)
  }) as typeof process.emitWarning
  try {
    const loaded = getBuiltinModule.call(process, "node:sqlite") as NodeSqlite | undefined
    return loaded !== undefined && typeof loaded.DatabaseSync === "function" ? loaded : undefined
  } catch {
    // Node 22.5-22.12 without --experimental-sqlite.
    return undefined
  } finally {
    process.emitWarning = emitWarning
  }
}

let nodeSqlite: NodeSqlite | null | undefined
const nodeSqliteModule = (): NodeSqlite | undefined => {
  if (nodeSqlite === undefined) nodeSqlite = loadNodeSqlite() ?? null
  return nodeSqlite ?? undefined
}

/**
 * Whether this Node has `node:sqlite` (22.13+, 24+; 22.5-22.12 with --experimental-sqlite).
 *
 * @example
 * ```ts
 * hasNodeSqlite() // false on Node 20
 * ```
 */
export const hasNodeSqlite = (): boolean => nodeSqliteModule() !== undefined

/**
 * The driver the mock opens a database with: {@link DRIVER_VARIABLE} when set to a driver's name,
 * else `node:sqlite` where this Node has it, else better-sqlite3.
 *
 * @example
 * ```ts
 * defaultDriver() // "node:sqlite" on Node 24, "better-sqlite3" on Node 20
 * ```
 */
export const defaultDriver = (): DriverName => {
  const chosen = process.env[DRIVER_VARIABLE]
  if (chosen === "node:sqlite" || chosen === "better-sqlite3") return chosen
  return hasNodeSqlite() ? "node:sqlite" : "better-sqlite3"
}

const fromNode = (db: NodeDatabaseSync): SqliteDatabase => ({
  driver: "node:sqlite",
  prepare: (sql) => {
    const statement = db.prepare(sql)
    // columns() is Node 22.16+/24: before it, every statement is run through all(), which runs a
    // statement without rows to its end just as run() does and gives [].
    const reader = statement.columns === undefined || statement.columns().length > 0
    let arrays = false
    return {
      reader,
      all: (params) => {
        if (arrays) {
          statement.setReturnArrays?.(false)
          arrays = false
        }
        return statement.all(...params)
      },
      run: (params) => statement.run(...params),
      values: (params) => {
        if (statement.setReturnArrays === undefined) {
          return statement.all(...params).map((row) => Object.values(row as object))
        }
        if (!arrays) {
          statement.setReturnArrays(true)
          arrays = true
        }
        return statement.all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
      }
    }
  },
  inTransaction: () => db.isTransaction ?? false,
  close: () => db.close()
})

const fromBetter = (db: BetterDatabase): SqliteDatabase => ({
  driver: "better-sqlite3",
  prepare: (sql) => {
    const statement = db.prepare(sql)
    return {
      reader: statement.reader,
      all: (params) => statement.all(...params),
      run: (params) => statement.run(...params),
      values: (params) => {
        statement.raw(true)
        try {
          return statement.all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
        } finally {
          statement.raw(false)
        }
      }
    }
  },
  inTransaction: () => db.inTransaction,
  close: () => db.close()
})

/**
 * Opens the SQLite database `filename` (a file or `:memory:`) with `driver`. Throws
 * {@link DriverUnavailable} when that driver cannot be loaded, or the driver's error for a file it
 * cannot open.
 *
 * @example
 * ```ts
 * const db = openDatabase(":memory:", defaultDriver())
 * db.prepare("SELECT 1 AS one").all([]) // [{ one: 1 }]
 * ```
 */
export const openDatabase = (filename: string, driver: DriverName = defaultDriver()): SqliteDatabase => {
  if (driver === "node:sqlite") {
    const sqlite = nodeSqliteModule()
    if (sqlite === undefined) throw new DriverUnavailable(driver, undefined)
    return fromNode(new sqlite.DatabaseSync(filename))
  }
  let Database: new (filename: string) => BetterDatabase
  try {
    // A require, not an import: the package is optional, and `pc`'s bundle runs without a module loader.
    Database = createRequire(import.meta.url)("better-sqlite3") as typeof Database
  } catch (cause) {
    throw new DriverUnavailable(driver, cause)
  }
  return fromBetter(new Database(filename))
}

/**
 * Whether `cause`, a driver's error, is SQLite's answer that another connection holds the lock
 * (SQLITE_BUSY or SQLITE_LOCKED): better-sqlite3 names it in `code`, node:sqlite numbers it in `errcode`.
 *
 * @example
 * ```ts
 * isBusy(error.cause) // true when another process holds the file
 * ```
 */
export const isBusy = (cause: unknown): boolean => {
  if (typeof cause !== "object" || cause === null) return false
  if ("code" in cause && typeof cause.code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(cause.code)) return true
  // The primary result code is the low byte of an extended one.
  return "errcode" in cause && typeof cause.errcode === "number" && [5, 6].includes(cause.errcode & 0xff)
}
