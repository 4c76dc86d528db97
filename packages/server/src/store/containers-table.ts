import { looksLikeSortableId, newSortableId } from './ids.js'
import { checkName } from './names.js'
import type { ContainerRecord, ContainerStatus, NewContainer, Scope } from './port.js'
import { type SqlRunner, scopeIds, UnknownScopeError, validScope } from './sql-runner.js'

interface ContainerRow {
  id: string
  org: string
  workspace: string
  driver: string
  sandbox_id: string
  status: string
  created_at: string
  last_used_at: string
  expires_at: string
  removed_at: string | null
}

const SELECT = `SELECT c.id, o.name AS org, w.name AS workspace, c.driver, c.sandbox_id, c.status,
  c.created_at, c.last_used_at, c.expires_at, c.removed_at
  FROM containers c
  JOIN orgs o ON o.id = c.org_id
  JOIN workspaces w ON w.id = c.workspace_id`

function toRecord(row: ContainerRow): ContainerRecord {
  return {
    id: row.id,
    org: row.org,
    workspace: row.workspace,
    driver: row.driver,
    sandboxId: row.sandbox_id,
    status: row.status as ContainerStatus,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    removedAt: row.removed_at,
  }
}

/**
 * The `containers` table: which sandbox backs each `cntr_` id, and its lifetime. Times are ISO
 * 8601 UTC strings from `toISOString()`, which compare correctly as text. The lifetime policy
 * (idle and absolute expiry) is the caller's; the table only stores what it is given.
 */
export class ContainersTable {
  constructor(private readonly db: SqlRunner) {}

  /**
   * Inserts the container unless its organisation already has `maxLive` live, unexpired ones
   * (then null). The count and the insert are one statement under the organisation's lock, so
   * concurrent creations, on one server or several, cannot both take the last place.
   */
  async create(input: NewContainer): Promise<ContainerRecord | null> {
    const ids = await scopeIds(this.db, input)
    if (ids === null) throw new UnknownScopeError()
    const id = newSortableId('cntr_')
    const inserted = await this.db.withOrgLock(ids.orgId, (db) =>
      db.run(
        'insertContainer',
        `INSERT INTO containers (id, org_id, workspace_id, driver, sandbox_id, status, created_at,
          last_used_at, expires_at)
          SELECT ?, ?, ?, ?, ?, 'live', ?, ?, ?
          WHERE (SELECT COUNT(*) FROM containers WHERE org_id = ? AND status = 'live'
            AND expires_at > ?) < ?`,
        [
          id,
          ids.orgId,
          ids.workspaceId,
          input.driver,
          input.sandboxId,
          input.createdAt,
          input.createdAt,
          input.expiresAt,
          ids.orgId,
          input.createdAt,
          input.maxLive,
        ],
      ),
    )
    if (inserted === 0) return null
    const created = await this.byId(id)
    if (created === null) throw new Error(`container ${id} vanished after insert`)
    return created
  }

  async get(scope: Scope, id: string, now: string): Promise<ContainerRecord | null> {
    if (!looksLikeSortableId('cntr_', id) || !validScope(scope)) return null
    const rows = await this.db.rows<ContainerRow>(
      'getContainer',
      `${SELECT} WHERE c.id = ? AND o.name = ? AND w.name = ? AND c.status = 'live'
        AND c.expires_at > ?`,
      [id, scope.org, scope.workspace, now],
    )
    return rows[0] ? toRecord(rows[0]) : null
  }

  async touch(
    id: string,
    times: { lastUsedAt: string; expiresAt: string },
  ): Promise<ContainerRecord | null> {
    if (!looksLikeSortableId('cntr_', id)) return null
    const changed = await this.db.run(
      'touchContainer',
      `UPDATE containers SET last_used_at = ?, expires_at = ? WHERE id = ? AND status = 'live'`,
      [times.lastUsedAt, times.expiresAt, id],
    )
    return changed === 1 ? this.byId(id) : null
  }

  async countLive(org: string, now: string): Promise<number> {
    if (checkName('org', org) !== null) return 0
    const rows = await this.db.rows<{ live: number | string }>(
      'countLiveContainers',
      `SELECT COUNT(*) AS live FROM containers c JOIN orgs o ON o.id = c.org_id
        WHERE o.name = ? AND c.status = 'live' AND c.expires_at > ?`,
      [org, now],
    )
    return Number(rows[0]?.live ?? 0)
  }

  async listLive(): Promise<ContainerRecord[]> {
    const rows = await this.db.rows<ContainerRow>(
      'listLiveContainers',
      `${SELECT} WHERE c.status = 'live' ORDER BY c.id`,
      [],
    )
    return rows.map(toRecord)
  }

  async markRemoved(id: string, removedAt: string): Promise<boolean> {
    if (!looksLikeSortableId('cntr_', id)) return false
    const changed = await this.db.run(
      'markContainerRemoved',
      `UPDATE containers SET status = 'removed', removed_at = ? WHERE id = ? AND status = 'live'`,
      [removedAt, id],
    )
    return changed === 1
  }

  private async byId(id: string): Promise<ContainerRecord | null> {
    const rows = await this.db.rows<ContainerRow>('containerById', `${SELECT} WHERE c.id = ?`, [id])
    return rows[0] ? toRecord(rows[0]) : null
  }
}
