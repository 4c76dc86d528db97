import { checkName } from './names.js'
import type { UsageEntry, UsageLine, UsageTotal } from './port.js'
import { type SqlRunner, scopeIds, UnknownScopeError } from './sql-runner.js'

interface EntryRow {
  org: string
  workspace: string
  request_id: string
  line: string
  seconds: number | string
  raw_ms: number | string
  created_at: string
}

interface TotalRow {
  workspace: string
  seconds: number | string
  raw_ms: number | string
  requests: number | string
}

/** The usage ledger: one row per request and billing line, never updated. */
export class UsageTable {
  constructor(private readonly db: SqlRunner) {}

  async record(entry: UsageEntry): Promise<{ recorded: boolean; entry: UsageEntry }> {
    const ids = await scopeIds(this.db, entry)
    if (ids === null) throw new UnknownScopeError()
    // The key (request_id, line) makes a retried record a no-op, on either database.
    const inserted = await this.db.run(
      'insertUsage',
      `INSERT INTO usage_ledger (request_id, line, org_id, workspace_id, seconds, raw_ms, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id, line) DO NOTHING`,
      [
        entry.requestId,
        entry.line,
        ids.orgId,
        ids.workspaceId,
        entry.seconds,
        entry.rawMs,
        entry.createdAt,
      ],
    )
    const rows = await this.db.rows<EntryRow>(
      'usageEntry',
      `SELECT o.name AS org, w.name AS workspace, u.request_id, u.line, u.seconds, u.raw_ms,
        u.created_at FROM usage_ledger u
        JOIN orgs o ON o.id = u.org_id JOIN workspaces w ON w.id = u.workspace_id
        WHERE u.request_id = ? AND u.line = ?`,
      [entry.requestId, entry.line],
    )
    const row = rows[0]
    if (row === undefined) throw new Error('usage entry vanished after insert')
    return {
      recorded: inserted === 1,
      entry: {
        org: row.org,
        workspace: row.workspace,
        requestId: row.request_id,
        line: row.line as UsageLine,
        seconds: Number(row.seconds),
        rawMs: Number(row.raw_ms),
        createdAt: row.created_at,
      },
    }
  }

  async totals(
    org: string,
    line: UsageLine,
    range: { from: string; to: string },
  ): Promise<UsageTotal[]> {
    if (checkName('org', org) !== null) return []
    const rows = await this.db.rows<TotalRow>(
      'usageTotals',
      `SELECT w.name AS workspace, SUM(u.seconds) AS seconds, SUM(u.raw_ms) AS raw_ms,
        COUNT(*) AS requests FROM usage_ledger u
        JOIN orgs o ON o.id = u.org_id JOIN workspaces w ON w.id = u.workspace_id
        WHERE o.name = ? AND u.line = ? AND u.created_at >= ? AND u.created_at < ?
        GROUP BY w.name ORDER BY w.name`,
      [org, line, range.from, range.to],
    )
    return rows.map((r) => ({
      workspace: r.workspace,
      seconds: Number(r.seconds),
      rawMs: Number(r.raw_ms),
      requests: Number(r.requests),
    }))
  }
}
