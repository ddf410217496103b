/**
 * The `--db` value as it may be shown: a PostgreSQL URL's password is a secret, and secrets never
 * appear in logs, banners, errors or events (CONTRACT.md), so every place that prints the database
 * prints it through here.
 */

/** What stands for a password that is not shown. */
const HIDDEN = "***"

/**
 * `db` with the password of a URL (in its user info, or as a `password=` query parameter, as libpq
 * takes it) replaced by `***`; a SQLite file name or `:memory:` unchanged.
 *
 * @example
 * ```ts
 * redactDatabaseUrl("postgres://mock:s3cret@db:5432/mock") // "postgres://mock:***@db:5432/mock"
 * redactDatabaseUrl(".pc-mock/sandbox.sqlite") // ".pc-mock/sandbox.sqlite"
 * ```
 */
export const redactDatabaseUrl = (db: string): string => {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(db)) return db
  let url: URL
  try {
    url = new URL(db)
  } catch {
    // Not a URL a parser reads: whatever follows the scheme may be credentials, so none of it shows.
    return `${db.slice(0, db.indexOf("://") + 3)}${HIDDEN}`
  }
  if (url.password !== "") url.password = HIDDEN
  for (const name of [...url.searchParams.keys()]) {
    if (/^(password|passwd|pass|pwd)$/i.test(name)) url.searchParams.set(name, HIDDEN)
  }
  return url.toString()
}
