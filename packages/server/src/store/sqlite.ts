import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { CREATE_MIGRATIONS_TABLE, pendingMigrations } from './migrations.js'
import { assertName, checkName } from './names.js'
import type { KeyRecord, Principal, Store } from './port.js'
import {
  KEY_ORDER,
  KEY_SELECT,
  type KeyRow,
  PRINCIPAL_SELECT,
  type PrincipalRow,
  toKeyRecord,
  toPrincipal,
} from './records.js'
import {
  displayPrefix,
  generateSecret,
  hashSecret,
  looksLikeKeyId,
  looksLikeSecret,
  newId,
} from './secrets.js'
import type { SqlRunner, SqlValue } from './sql-runner.js'
import { TableStore } from './table-store.js'

export const SQLITE_FILE_NAME = 'syntic.db'
/** How long a writer waits for another process's write lock before giving up. */
const BUSY_TIMEOUT_MS = 5000

type Statement<P extends unknown[], R> = Database.Statement<P, R>

interface Statements {
  authenticate: Statement<[string], PrincipalRow>
  insertOrg: Statement<[string, string, string], unknown>
  orgId: Statement<[string], { id: string }>
  insertWorkspace: Statement<[string, string, string, string], unknown>
  workspaceId: Statement<[string, string], { id: string }>
  insertKey: Statement<[string, string, string, string, string, string], unknown>
  keyById: Statement<[string], KeyRow>
  keyByHash: Statement<[string], KeyRow>
  revokeById: Statement<[string, string], unknown>
  revokeByHash: Statement<[string, string], unknown>
  listAll: Statement<[], KeyRow>
  listByOrg: Statement<[string], KeyRow>
}

/** The SQLite side of the shared tables: statements prepared once per name. */
function sqliteRunner(db: Database.Database): SqlRunner {
  const cache = new Map<string, Database.Statement<SqlValue[], unknown>>()
  const statement = (name: string, sql: string) => {
    let prepared = cache.get(name)
    if (prepared === undefined) {
      prepared = db.prepare<SqlValue[], unknown>(sql)
      cache.set(name, prepared)
    }
    return prepared
  }
  const runner: SqlRunner = {
    async rows<R>(name: string, sql: string, params: readonly SqlValue[]): Promise<R[]> {
      return statement(name, sql).all(...params) as R[]
    },
    async run(name, sql, params) {
      return statement(name, sql).run(...params).changes
    },
    withOrgLock(_orgId, work) {
      return work(runner)
    },
  }
  return runner
}

/** Creates the folder 0700 and the database file 0600 before SQLite opens it. */
function prepareFile(home: string): string {
  mkdirSync(home, { recursive: true, mode: 0o700 })
  const file = join(home, SQLITE_FILE_NAME)
  closeSync(openSync(file, 'a', 0o600))
  // A file made by an older build or by hand may be wider; the keys' hashes stay private.
  chmodSync(file, 0o600)
  return file
}

/**
 * The embedded metadata store: one SQLite file in the server's home, WAL mode so readers never
 * wait for the writer, and safe to share between processes on one machine (busy_timeout, write
 * transactions that take the lock up front). SQLite makes its -wal and -shm files with the
 * database file's mode.
 */
export class SqliteStore extends TableStore implements Store {
  readonly file: string
  private readonly db: Database.Database
  private prepared: Statements | undefined

  constructor(home: string) {
    const file = prepareFile(home)
    const db = new Database(file)
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    db.pragma('journal_mode = WAL')
    // synchronous stays FULL: a revocation must survive a power cut, and writes are rare.
    db.pragma('foreign_keys = ON')
    super(sqliteRunner(db))
    this.file = file
    this.db = db
  }

  async migrate(): Promise<void> {
    const apply = this.db.transaction(() => {
      this.db.exec(CREATE_MIGRATIONS_TABLE)
      const rows = this.db.prepare<[], { version: number }>('SELECT version FROM schema_migrations')
      const applied = new Set(rows.all().map((r) => r.version))
      const record = this.db.prepare(
        'INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)',
      )
      for (const migration of pendingMigrations(applied)) {
        for (const statement of migration.statements) this.db.exec(statement)
        record.run(migration.version, new Date().toISOString())
      }
    })
    // IMMEDIATE takes the write lock first: two processes starting at once migrate one by one.
    apply.immediate()
  }

  async createKey(input: {
    org: string
    workspace: string
  }): Promise<{ key: string; record: KeyRecord }> {
    assertName('org', input.org)
    assertName('workspace', input.workspace)
    const s = this.statements
    const key = generateSecret()
    const keyId = newId('key_')
    const now = new Date().toISOString()
    const create = this.db.transaction(() => {
      s.insertOrg.run(newId('org_'), input.org, now)
      const orgId = s.orgId.get(input.org)!.id
      s.insertWorkspace.run(newId('wrk_'), orgId, input.workspace, now)
      const workspaceId = s.workspaceId.get(orgId, input.workspace)!.id
      s.insertKey.run(keyId, orgId, workspaceId, hashSecret(key), displayPrefix(key), now)
    })
    create.immediate()
    return { key, record: toKeyRecord(this.statements.keyById.get(keyId)!) }
  }

  async revokeKey(idOrSecret: string): Promise<KeyRecord | null> {
    const s = this.statements
    const now = new Date().toISOString()
    let row: KeyRow | undefined
    if (looksLikeSecret(idOrSecret)) {
      const hash = hashSecret(idOrSecret)
      s.revokeByHash.run(now, hash)
      row = s.keyByHash.get(hash)
    } else if (looksLikeKeyId(idOrSecret)) {
      s.revokeById.run(now, idOrSecret)
      row = s.keyById.get(idOrSecret)
    }
    return row ? toKeyRecord(row) : null
  }

  async listKeys(filter?: { org?: string }): Promise<KeyRecord[]> {
    const s = this.statements
    const org = filter?.org
    if (org === undefined) return s.listAll.all().map(toKeyRecord)
    // A name no org could have matches nothing; it is not worth a query.
    if (checkName('org', org) !== null) return []
    return s.listByOrg.all(org).map(toKeyRecord)
  }

  async authenticate(secret: string): Promise<Principal | null> {
    if (!looksLikeSecret(secret)) return null
    const row = this.statements.authenticate.get(hashSecret(secret))
    return row ? toPrincipal(row) : null
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get()
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close()
  }

  /** Prepared on first use, after `migrate` made the tables they name. */
  private get statements(): Statements {
    this.prepared ??= prepareStatements(this.db)
    return this.prepared
  }
}

function prepareStatements(db: Database.Database): Statements {
  return {
    authenticate: db.prepare(
      `${PRINCIPAL_SELECT} WHERE k.secret_hash = ? AND k.revoked_at IS NULL`,
    ),
    insertOrg: db.prepare(
      'INSERT INTO orgs (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
    ),
    orgId: db.prepare('SELECT id FROM orgs WHERE name = ?'),
    insertWorkspace: db.prepare(
      `INSERT INTO workspaces (id, org_id, name, created_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (org_id, name) DO NOTHING`,
    ),
    workspaceId: db.prepare('SELECT id FROM workspaces WHERE org_id = ? AND name = ?'),
    insertKey: db.prepare(
      `INSERT INTO api_keys (id, org_id, workspace_id, secret_hash, prefix, created_at)
        VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    keyById: db.prepare(`${KEY_SELECT} WHERE k.id = ?`),
    keyByHash: db.prepare(`${KEY_SELECT} WHERE k.secret_hash = ?`),
    revokeById: db.prepare(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    ),
    revokeByHash: db.prepare(
      'UPDATE api_keys SET revoked_at = ? WHERE secret_hash = ? AND revoked_at IS NULL',
    ),
    listAll: db.prepare(`${KEY_SELECT} ${KEY_ORDER}`),
    listByOrg: db.prepare(`${KEY_SELECT} WHERE o.name = ? ${KEY_ORDER}`),
  }
}
