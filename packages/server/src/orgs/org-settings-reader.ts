import { DEFAULT_CODE_EXECUTION, DEFAULT_TIER } from '../store/org-settings-table.js'
import type { Store } from '../store/port.js'
import { type EffectiveOrgSettings, type Tiers, withEffectiveLimit } from './container-limit.js'

/** How long a read is reused: a change by `syntic orgs set` reaches every server within this. */
export const ORG_SETTINGS_TTL_MS = 5_000

interface Cached {
  settings: Promise<EffectiveOrgSettings>
  until: number
}

export interface OrgSettingsReaderOptions {
  /** The server config's tiers, which give organisations without an override their limit. */
  tiers?: Tiers | undefined
  ttlMs?: number
  clock?: () => number
}

/**
 * Organisation settings for the request path (code execution on or off, the live-container limit
 * after the tier is applied, the egress allowlist), read from the store at most once per
 * organisation every few seconds. An organisation the store does not know gets the defaults.
 */
export class OrgSettingsReader {
  private readonly cache = new Map<string, Cached>()
  private readonly tiers: Tiers
  private readonly ttlMs: number
  private readonly clock: () => number

  constructor(
    private readonly store: Store,
    options: OrgSettingsReaderOptions = {},
  ) {
    this.tiers = options.tiers ?? {}
    this.ttlMs = options.ttlMs ?? ORG_SETTINGS_TTL_MS
    this.clock = options.clock ?? Date.now
  }

  get(org: string): Promise<EffectiveOrgSettings> {
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

  private async read(org: string): Promise<EffectiveOrgSettings> {
    const stored = (await this.store.getOrgSettings(org)) ?? {
      org,
      codeExecution: DEFAULT_CODE_EXECUTION,
      containerLimitOverride: null,
      egressAllowlist: [],
      tier: DEFAULT_TIER,
      updatedAt: null,
    }
    return withEffectiveLimit(stored, this.tiers)
  }
}
