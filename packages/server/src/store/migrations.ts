/**
 * The schema, as numbered migrations applied in order and recorded in `schema_migrations`.
 * Each statement runs unchanged on SQLite and PostgreSQL: TEXT and INTEGER columns, ISO 8601 UTC
 * timestamps as TEXT (they sort in time order), ids made by the application (`org_...`), so no
 * AUTOINCREMENT or SERIAL. A change to the schema is one more entry at the end; applied entries
 * never change.
 */
export interface Migration {
  version: number
  name: string
  statements: readonly string[]
}

export const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  applied_at TEXT NOT NULL
)`

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'orgs, workspaces and api keys',
    statements: [
      `CREATE TABLE orgs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
      )`,
      `CREATE TABLE workspaces (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES orgs (id),
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (org_id, name)
      )`,
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES orgs (id),
        workspace_id TEXT NOT NULL REFERENCES workspaces (id),
        secret_hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      )`,
      'CREATE INDEX api_keys_org_id ON api_keys (org_id)',
    ],
  },
]

/** The migrations not yet in `applied`, in order. */
export function pendingMigrations(applied: ReadonlySet<number>): Migration[] {
  return MIGRATIONS.filter((m) => !applied.has(m.version))
}
