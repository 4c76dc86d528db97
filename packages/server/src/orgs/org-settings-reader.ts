import {
  DEFAULT_CODE_EXECUTION,
  DEFAULT_CONTAINER_LIMIT,
  DEFAULT_TIER,
} from '../store/org-settings-table.js'
import type { OrgSettings, Store } from '../store/port.js'

/** How long a read is reused: a change by `syntic orgs set` reaches every server within this. */
export const ORG_SETTINGS_TTL_MS = 5_000

interface Cached {
  settings: Promise<OrgSettings>
  until: number
}

/**
 * Organisation settings for the request path (code execution on or off, the live-container limit,
 * the egress allowlist), read from the store at most once per organisation every few seconds.
 * An organisation the store does not know gets the defaults.
 */
export class OrgSettingsReader {
  private readonly cache = new Map<string, Cached>()

  constructor(
    private readonly store: Store,
    private readonly ttlMs: number = ORG_SETTINGS_TTL_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  get(org: string): Promise<OrgSettings> {
    const now = this.clock()
    const cached = this.cache.get(org)
    if (cached !== undefined && cached.until > now) return cached.settings
    const settings = this.read(org)
    this.cache.set(org, { settings, until: now + this.ttlMs })
    // A failed read is not kept: the next request asks the store again.
    settings.catch(() => this.cache.delete(org))
    return settings
  }

  /** Forgets cached settings, of one organisation or all. */
  invalidate(org?: string): void {
    if (org === undefined) this.cache.clear()
    else this.cache.delete(org)
  }

  private async read(org: string): Promise<OrgSettings> {
    return (
      (await this.store.getOrgSettings(org)) ?? {
        org,
        codeExecution: DEFAULT_CODE_EXECUTION,
        containerLimit: DEFAULT_CONTAINER_LIMIT,
        egressAllowlist: [],
        tier: DEFAULT_TIER,
        updatedAt: null,
      }
    )
  }
}
