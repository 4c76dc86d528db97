import { assertName, checkName } from './names.js'
import type { OrgSettings, OrgSettingsPatch } from './port.js'
import { newId } from './secrets.js'
import type { SqlRunner } from './sql-runner.js'

/** What an organisation gets until someone changes it: the spec's defaults, no network. */
export const DEFAULT_CODE_EXECUTION = true
export const DEFAULT_CONTAINER_LIMIT = 20
export const DEFAULT_TIER = 'default'

/** What an org that never changed its settings has. */
export function defaultOrgSettings(org: string): OrgSettings {
  return {
    org,
    codeExecution: DEFAULT_CODE_EXECUTION,
    containerLimitOverride: null,
    egressAllowlist: [],
    tier: DEFAULT_TIER,
    updatedAt: null,
  }
}

interface SettingsRow {
  code_execution: number | null
  container_limit_override: number | null
  egress_allowlist: string | null
  tier: string | null
  updated_at: string | null
}

function toSettings(org: string, row: SettingsRow): OrgSettings {
  if (row.updated_at === null) return defaultOrgSettings(org)
  return {
    org,
    codeExecution: Number(row.code_execution) === 1,
    containerLimitOverride:
      row.container_limit_override === null ? null : Number(row.container_limit_override),
    egressAllowlist: JSON.parse(row.egress_allowlist ?? '[]') as string[],
    tier: row.tier ?? DEFAULT_TIER,
    updatedAt: row.updated_at,
  }
}

/** `org_settings`: one row per organisation that changed a default; none means defaults. */
export class OrgSettingsTable {
  constructor(private readonly db: SqlRunner) {}

  async get(org: string): Promise<OrgSettings | null> {
    if (checkName('org', org) !== null) return null
    // LEFT JOIN: an org without a row exists and has the defaults; no org row means no org.
    const rows = await this.db.rows<SettingsRow>(
      'getOrgSettings',
      `SELECT s.code_execution, s.container_limit_override, s.egress_allowlist, s.tier, s.updated_at
        FROM orgs o LEFT JOIN org_settings s ON s.org_id = o.id WHERE o.name = ?`,
      [org],
    )
    return rows[0] ? toSettings(org, rows[0]) : null
  }

  async update(org: string, patch: OrgSettingsPatch): Promise<OrgSettings> {
    assertName('org', org)
    const now = new Date().toISOString()
    await this.db.run(
      'ensureOrg',
      'INSERT INTO orgs (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
      [newId('org_'), org, now],
    )
    const orgRows = await this.db.rows<{ id: string }>(
      'orgIdByName',
      'SELECT id FROM orgs WHERE name = ?',
      [org],
    )
    const orgId = orgRows[0]?.id
    if (orgId === undefined) throw new Error(`organisation ${org} vanished after insert`)
    const code = patch.codeExecution === undefined ? null : patch.codeExecution ? 1 : 0
    const setOverride = patch.containerLimitOverride === undefined ? 0 : 1
    const override = patch.containerLimitOverride ?? null
    const egress =
      patch.egressAllowlist === undefined ? null : JSON.stringify(patch.egressAllowlist)
    const tier = patch.tier ?? null
    const d = defaultOrgSettings(org)
    // container_limit is what servers before migration 3 enforce; it mirrors the override so they
    // keep their old behaviour during a rolling upgrade. One statement, so two changes at once
    // each keep the other's fields.
    await this.db.run(
      'upsertOrgSettings',
      `INSERT INTO org_settings (org_id, code_execution, container_limit, container_limit_override,
        egress_allowlist, tier, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (org_id) DO UPDATE SET
          code_execution = COALESCE(?, org_settings.code_execution),
          container_limit = CASE WHEN ? = 1 THEN ? ELSE org_settings.container_limit END,
          container_limit_override = CASE WHEN ? = 1 THEN ? ELSE org_settings.container_limit_override END,
          egress_allowlist = COALESCE(?, org_settings.egress_allowlist),
          tier = COALESCE(?, org_settings.tier),
          updated_at = ?`,
      [
        orgId,
        code ?? (d.codeExecution ? 1 : 0),
        override ?? DEFAULT_CONTAINER_LIMIT,
        override,
        egress ?? JSON.stringify(d.egressAllowlist),
        tier ?? d.tier,
        now,
        code,
        setOverride,
        override ?? DEFAULT_CONTAINER_LIMIT,
        setOverride,
        override,
        egress,
        tier,
        now,
      ],
    )
    const updated = await this.get(org)
    if (updated === null) throw new Error(`organisation ${org} vanished after update`)
    return updated
  }
}
