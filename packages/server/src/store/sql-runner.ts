import { checkName } from './names.js'
import type { Scope } from './port.js'

export type SqlValue = string | number | null

/**
 * What the tables below need of a database: both adapters provide it, so each query is written
 * once. SQL uses `?` placeholders; the PostgreSQL adapter numbers them. `name` identifies the
 * statement for caching (SQLite) or server-side preparation (PostgreSQL) and must be unique.
 */
export interface SqlRunner {
  rows<R>(name: string, sql: string, params: readonly SqlValue[]): Promise<R[]>
  /** Runs a statement and returns how many rows it changed. */
  run(name: string, sql: string, params: readonly SqlValue[]): Promise<number>
  /**
   * Runs `work` holding the organisation's lock, so that the same call for that organisation from
   * any server waits for it. PostgreSQL: a transaction holding the org's row (`FOR NO KEY UPDATE`,
   * which file and container inserts do not wait on); each statement of `work` then sees what the
   * previous holder committed. SQLite: one writer at a time already, so a single conditional
   * statement in `work` needs nothing more.
   */
  withOrgLock<T>(orgId: string, work: (db: SqlRunner) => Promise<T>): Promise<T>
}

/** `?` placeholders as PostgreSQL's `$1, $2, ...`; the queries hold no `?` inside literals. */
export function numbered(sql: string): string {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

/** Whether both names could exist; any other scope matches nothing, without a query. */
export function validScope(scope: Scope): boolean {
  return checkName('org', scope.org) === null && checkName('workspace', scope.workspace) === null
}

export interface ScopeIds {
  orgId: string
  workspaceId: string
}

/** The row ids of a scope's org and workspace, or null when either does not exist. */
export async function scopeIds(db: SqlRunner, scope: Scope): Promise<ScopeIds | null> {
  if (!validScope(scope)) return null
  const rows = await db.rows<{ org_id: string; workspace_id: string }>(
    'scopeIds',
    `SELECT w.org_id, w.id AS workspace_id FROM workspaces w
      JOIN orgs o ON o.id = w.org_id WHERE o.name = ? AND w.name = ?`,
    [scope.org, scope.workspace],
  )
  const row = rows[0]
  return row ? { orgId: row.org_id, workspaceId: row.workspace_id } : null
}

/** Thrown when a write names a workspace that does not exist: a caller bug, not user input. */
export class UnknownScopeError extends Error {
  override name = 'UnknownScopeError'
  constructor() {
    super('no such organisation and workspace in the store')
  }
}
