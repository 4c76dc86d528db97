import pg from 'pg'
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
import { numbered, type SqlRunner, type SqlValue } from './sql-runner.js'
import { TableStore } from './table-store.js'

/** The advisory lock that serialises migrations across servers sharing one database. */
const MIGRATION_LOCK = '7301946283554019' // arbitrary, fixed: "syntic" has no lock of its own

/**
 * Queries named once and reused: pg prepares each on a connection the first time that
 * connection runs it, then only binds values.
 */
const QUERIES = {
  authenticate: `${PRINCIPAL_SELECT} WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`,
  insertOrg: `INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)
    ON CONFLICT (name) DO NOTHING`,
  orgId: 'SELECT id FROM orgs WHERE name = $1',
  insertWorkspace: `INSERT INTO workspaces (id, org_id, name, created_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT (org_id, name) DO NOTHING`,
  workspaceId: 'SELECT id FROM workspaces WHERE org_id = $1 AND name = $2',
  insertKey: `INSERT INTO api_keys (id, org_id, workspace_id, secret_hash, prefix, created_at)
    VALUES ($1, $2, $3, $4, $5, $6)`,
  keyById: `${KEY_SELECT} WHERE k.id = $1`,
  keyByHash: `${KEY_SELECT} WHERE k.secret_hash = $1`,
  revokeById: 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
  revokeByHash: 'UPDATE api_keys SET revoked_at = $1 WHERE secret_hash = $2 AND revoked_at IS NULL',
  listAll: `${KEY_SELECT} ${KEY_ORDER}`,
  listByOrg: `${KEY_SELECT} WHERE o.name = $1 ${KEY_ORDER}`,
} as const

type QueryName = keyof typeof QUERIES

function query(name: QueryName, values: unknown[]): pg.QueryConfig {
  return { name: `syntic_${name}`, text: QUERIES[name], values }
}

/** The PostgreSQL side of the shared tables: named, server-prepared queries. */
function postgresRunner(pool: pg.Pool): SqlRunner {
  const texts = new Map<string, string>()
  const config = (name: string, sql: string, params: readonly SqlValue[]): pg.QueryConfig => {
    let text = texts.get(name)
    if (text === undefined) {
      text = numbered(sql)
      texts.set(name, text)
    }
    return { name: `syntic_${name}`, text, values: [...params] }
  }
  const on = (db: pg.Pool | pg.PoolClient): SqlRunner => ({
    async rows<R>(name: string, sql: string, params: readonly SqlValue[]): Promise<R[]> {
      const result = await db.query(config(name, sql, params))
      return result.rows as R[]
    },
    async run(name, sql, params) {
      return (await db.query(config(name, sql, params))).rowCount ?? 0
    },
    withOrgLock(orgId, work) {
      return inTransaction(pool, async (client) => {
        await client.query(
          config('lockOrg', 'SELECT id FROM orgs WHERE id = ? FOR NO KEY UPDATE', [orgId]),
        )
        return work(on(client))
      })
    },
  })
  return on(pool)
}

/** Longest wait for a connection, and for any one query's answer. */
const STORE_TIMEOUT_MS = 5_000

export interface PostgresStoreOptions {
  /** Replaces the 5 s limit on connecting and on each query. */
  timeoutMs?: number
}

/**
 * The metadata store for several servers: PostgreSQL through a connection pool. Nothing is
 * cached, so a key revoked through any server is refused by every server on its next request.
 */
export class PostgresStore extends TableStore implements Store {
  private readonly pool: pg.Pool

  constructor(connectionString: string, options: PostgresStoreOptions = {}) {
    const timeoutMs = options.timeoutMs ?? STORE_TIMEOUT_MS
    // A database that stalls fails each call (a 503 from /healthz) instead of hanging requests.
    const pool = new pg.Pool({
      connectionString,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
    })
    // An idle connection the server drops (restart, failover) emits here; without a listener the
    // process would crash. The pool discards that connection and the next query opens another.
    pool.on('error', () => {})
    super(postgresRunner(pool))
    this.pool = pool
  }

  async migrate(): Promise<void> {
    await this.transaction(async (client) => {
      // Held until COMMIT: a second server waits here, then finds nothing left to apply.
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
      await client.query(CREATE_MIGRATIONS_TABLE)
      const { rows } = await client.query<{ version: number }>(
        'SELECT version FROM schema_migrations',
      )
      const applied = new Set(rows.map((r) => r.version))
      for (const migration of pendingMigrations(applied)) {
        for (const statement of migration.statements) await client.query(statement)
        await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
          migration.version,
          new Date().toISOString(),
        ])
      }
    })
  }

  async createKey(input: {
    org: string
    workspace: string
  }): Promise<{ key: string; record: KeyRecord }> {
    assertName('org', input.org)
    assertName('workspace', input.workspace)
    const key = generateSecret()
    const keyId = newId('key_')
    const now = new Date().toISOString()
    await this.transaction(async (client) => {
      // DO NOTHING waits for a concurrent insert of the same name to commit; the SELECT after it
      // then sees that row, so two servers creating keys in a new org share one org.
      await client.query(query('insertOrg', [newId('org_'), input.org, now]))
      const org = await client.query<{ id: string }>(query('orgId', [input.org]))
      const orgId = org.rows[0]!.id
      await client.query(query('insertWorkspace', [newId('wrk_'), orgId, input.workspace, now]))
      const workspace = await client.query<{ id: string }>(
        query('workspaceId', [orgId, input.workspace]),
      )
      const workspaceId = workspace.rows[0]!.id
      await client.query(
        query('insertKey', [keyId, orgId, workspaceId, hashSecret(key), displayPrefix(key), now]),
      )
    })
    const created = await this.pool.query<KeyRow>(query('keyById', [keyId]))
    return { key, record: toKeyRecord(created.rows[0]!) }
  }

  async revokeKey(idOrSecret: string): Promise<KeyRecord | null> {
    const now = new Date().toISOString()
    let rows: KeyRow[] = []
    if (looksLikeSecret(idOrSecret)) {
      const hash = hashSecret(idOrSecret)
      await this.pool.query(query('revokeByHash', [now, hash]))
      rows = (await this.pool.query<KeyRow>(query('keyByHash', [hash]))).rows
    } else if (looksLikeKeyId(idOrSecret)) {
      await this.pool.query(query('revokeById', [now, idOrSecret]))
      rows = (await this.pool.query<KeyRow>(query('keyById', [idOrSecret]))).rows
    }
    const row = rows[0]
    return row ? toKeyRecord(row) : null
  }

  async listKeys(filter?: { org?: string }): Promise<KeyRecord[]> {
    const org = filter?.org
    if (org === undefined) {
      return (await this.pool.query<KeyRow>(query('listAll', []))).rows.map(toKeyRecord)
    }
    // A name no org could have matches nothing (and PostgreSQL rejects text holding NUL).
    if (checkName('org', org) !== null) return []
    return (await this.pool.query<KeyRow>(query('listByOrg', [org]))).rows.map(toKeyRecord)
  }

  async authenticate(secret: string): Promise<Principal | null> {
    if (!looksLikeSecret(secret)) return null
    const result = await this.pool.query<PrincipalRow>(query('authenticate', [hashSecret(secret)]))
    const row = result.rows[0]
    return row ? toPrincipal(row) : null
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1')
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end()
  }

  private transaction(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    return inTransaction(this.pool, work)
  }
}

/** Runs `work` in a transaction on one connection: committed when it resolves, else rolled back. */
async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    client.release()
    return result
  } catch (error) {
    // A connection whose ROLLBACK failed is in an unknown state: destroy it, not reuse it.
    const broken = await client.query('ROLLBACK').then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
    )
    client.release(broken)
    throw error
  }
}
