import type { KeyRecord, Principal } from './port.js'

/** A key row joined with its org and workspace names, as both adapters select it. */
export interface KeyRow {
  id: string
  org: string
  workspace: string
  prefix: string
  created_at: string
  revoked_at: string | null
}

export interface PrincipalRow {
  id: string
  org: string
  workspace: string
}

/** The FROM part shared by every key query; `WHERE` and placeholders are the adapter's. */
export const KEY_SELECT = `SELECT k.id, o.name AS org, w.name AS workspace, k.prefix,
  k.created_at, k.revoked_at
  FROM api_keys k
  JOIN orgs o ON o.id = k.org_id
  JOIN workspaces w ON w.id = k.workspace_id`

export const PRINCIPAL_SELECT = `SELECT k.id, o.name AS org, w.name AS workspace
  FROM api_keys k
  JOIN orgs o ON o.id = k.org_id
  JOIN workspaces w ON w.id = k.workspace_id`

export const KEY_ORDER = 'ORDER BY k.created_at, k.id'

export function toKeyRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    org: row.org,
    workspace: row.workspace,
    prefix: row.prefix,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  }
}

export function toPrincipal(row: PrincipalRow): Principal {
  return { keyId: row.id, org: row.org, workspace: row.workspace }
}
