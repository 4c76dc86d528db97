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
  {
    version: 2,
    name: 'files, containers, usage ledger and organisation settings',
    statements: [
      // BIGINT: an INTEGER on SQLite, 64 bits on PostgreSQL (whose INTEGER stops at 2 GiB).
      `CREATE TABLE files (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES orgs (id),
        workspace_id TEXT NOT NULL REFERENCES workspaces (id),
        filename TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        mime_type TEXT NOT NULL,
        purpose TEXT NOT NULL,
        source TEXT NOT NULL,
        blob_key TEXT NOT NULL,
        container_id TEXT,
        created_at TEXT NOT NULL
      )`,
      'CREATE INDEX files_workspace_id ON files (workspace_id, id)',
      `CREATE TABLE containers (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES orgs (id),
        workspace_id TEXT NOT NULL REFERENCES workspaces (id),
        driver TEXT NOT NULL,
        sandbox_id TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        removed_at TEXT
      )`,
      'CREATE INDEX containers_org_status ON containers (org_id, status)',
      `CREATE TABLE usage_ledger (
        request_id TEXT NOT NULL,
        line TEXT NOT NULL,
        org_id TEXT NOT NULL REFERENCES orgs (id),
        workspace_id TEXT NOT NULL REFERENCES workspaces (id),
        seconds BIGINT NOT NULL,
        raw_ms BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (request_id, line)
      )`,
      'CREATE INDEX usage_ledger_org_line_created ON usage_ledger (org_id, line, created_at)',
      `CREATE TABLE org_settings (
        org_id TEXT PRIMARY KEY REFERENCES orgs (id),
        code_execution INTEGER NOT NULL,
        container_limit INTEGER NOT NULL,
        egress_allowlist TEXT NOT NULL,
        tier TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
    ],
  },
  {
    version: 3,
    name: 'container limit from the tier, with an optional per-organisation override',
    statements: [
      'ALTER TABLE org_settings ADD COLUMN container_limit_override INTEGER',
      // 20 was the default every row got: only other values were surely set on purpose.
      'UPDATE org_settings SET container_limit_override = container_limit WHERE container_limit <> 20',
    ],
  },
]

/** The migrations not yet in `applied`, in order. */
export function pendingMigrations(applied: ReadonlySet<number>): Migration[] {
  return MIGRATIONS.filter((m) => !applied.has(m.version))
}
