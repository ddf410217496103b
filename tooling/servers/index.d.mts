/** A server started for one test run; `stop()` ends it and removes its directory. */
export interface ThrowawayServer {
  /** Connection URL on 127.0.0.1 (`postgres://postgres@127.0.0.1:PORT/postgres`, `redis://127.0.0.1:PORT`). */
  readonly url: string
  readonly port: number
  /** The temporary directory holding its data, removed by `stop()`. */
  readonly dir: string
  /** Stops the server (fast shutdown), waits for it to exit, removes its directory. Idempotent. */
  readonly stop: () => Promise<void>
}

export interface ThrowawayPostgres extends ThrowawayServer {
  /** Creates a database on this server and resolves its URL. */
  readonly createDatabase: (name: string) => Promise<string>
  /**
   * Stops the server (fast shutdown: every client is disconnected), keeping its data directory and
   * port, and resolves once it has exited; `up()` starts it again. For tests of a database restart.
   */
  readonly down: () => Promise<void>
  /** Starts a server that `down()` stopped, on the same data and port; resolves once it accepts connections. */
  readonly up: () => Promise<void>
  /**
   * `down()`, then `downMs` (default 0) with nothing listening, then `up()`: a real restart, the
   * same URL before and after.
   *
   * @example
   * ```ts
   * await pg.restart({ downMs: 1_000 })
   * ```
   */
  readonly restart: (options?: { readonly downMs?: number }) => Promise<void>
}

/** A throwaway MariaDB: `url` is `mysql://root@127.0.0.1:PORT/test` (a database made at start). */
export interface ThrowawayMariadb extends ThrowawayServer {
  /** Creates a database (letters, digits, `_`) on this server and resolves its URL. */
  readonly createDatabase: (name: string) => Promise<string>
}

/** A loopback port that was free a moment ago. */
export declare const freePort: () => Promise<number>

/** The bin directory of the newest installed PostgreSQL (`$PG_BIN`, else /usr/lib/postgresql/N/bin), or undefined. */
export declare const postgresBinDir: () => string | undefined
/** MariaDB's server, installer and client: in `$MARIADB_BIN`, else on the PATH or in /usr/bin, /usr/sbin; or undefined. */
export declare const mariadbBinaries: () =>
  | { readonly server: string; readonly installDb: string; readonly client: string }
  | undefined
/** `$REDIS_SERVER`, else redis-server on the PATH or in /usr/bin, or undefined. */
export declare const redisServerPath: () => string | undefined

/**
 * Starts PostgreSQL (initdb + postgres) in a temporary directory on a free loopback port, as the
 * `postgres` user (or `nobody`) when run as root, since postgres refuses to run as root. Trust
 * authentication, no fsync: for tests only.
 */
export declare const startPostgres: (options?: { readonly maxConnections?: number }) => Promise<ThrowawayPostgres>

/**
 * Starts MariaDB (mariadb-install-db + mariadbd) in a temporary directory on a free loopback port,
 * with `--user=root` when run as root. No grant tables (any user, no password), nothing flushed at
 * commit: for tests only.
 */
export declare const startMariadb: (options?: { readonly maxConnections?: number }) => Promise<ThrowawayMariadb>

/** Starts redis-server in a temporary directory on a free loopback port, without persistence. */
export declare const startRedis: () => Promise<ThrowawayServer>

export interface SystemPackage {
  /** The Debian package name. */
  readonly name: string
  /** Why the tests need it. */
  readonly purpose: string
  /** Whether it is usable on this machine now. */
  readonly installed: () => boolean
}

/** Every system package the tests use. */
export declare const systemPackages: ReadonlyArray<SystemPackage>
/** The system packages not found on this machine. */
export declare const missingSystemPackages: () => ReadonlyArray<SystemPackage>
/**
 * The test files to leave out of a run because a Debian package they need is missing and
 * PC_NO_SYSTEM_PACKAGES=1 (each printed with its reason); none without that variable.
 *
 * @example
 * ```ts
 * export default defineConfig({
 *   test: { exclude: [...configDefaults.exclude, ...excludedWithout({ "test/Redis.test.ts": ["redis-server"] })] }
 * })
 * ```
 */
export declare const excludedWithout: (needs: Readonly<Record<string, ReadonlyArray<string>>>) => Array<string>
