import { defaultOrgSettings } from '../store/org-settings-table.js'
import type { Store } from '../store/port.js'
import { type EffectiveOrgSettings, type Tiers, withEffectiveLimit } from './container-limit.js'

/** How long a read is reused: a change by `syntic orgs set` reaches every server within this. */
export const ORG_SETTINGS_TTL_MS = 5_000

/** Organisations cached at once: a server with many organisations keeps only recent ones. */
export const ORG_SETTINGS_CACHE_MAX = 10_000

interface Cached {
  settings: Promise<EffectiveOrgSettings>
  until: number
}

export interface OrgSettingsReaderOptions {
  /** The server config's tiers, which give organisations without an override their limit. */
  tiers?: Tiers | undefined
  ttlMs?: number
  /** Organisations cached at once; ORG_SETTINGS_CACHE_MAX unless set. */
  maxEntries?: number
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
  private readonly maxEntries: number
  private readonly clock: () => number

  constructor(
    private readonly store: Store,
    options: OrgSettingsReaderOptions = {},
  ) {
    this.tiers = options.tiers ?? {}
    this.ttlMs = options.ttlMs ?? ORG_SETTINGS_TTL_MS
    this.maxEntries = options.maxEntries ?? ORG_SETTINGS_CACHE_MAX
    this.clock = options.clock ?? Date.now
  }

  get(org: string): Promise<EffectiveOrgSettings> {
    const now = this.clock()
    const cached = this.cache.get(org)
    if (cached !== undefined && cached.until > now) return cached.settings
    const settings = this.read(org)
    this.cache.delete(org)
    if (this.cache.size >= this.maxEntries) this.evict(now)
    this.cache.set(org, { settings, until: now + this.ttlMs })
    // A failed read is not kept: the next request asks the store again.
    settings.catch(() => {
      if (this.cache.get(org)?.settings === settings) this.cache.delete(org)
    })
    return settings
  }

  /** Forgets cached settings, of one organisation or all. */
  invalidate(org?: string): void {
    if (org === undefined) this.cache.clear()
    else this.cache.delete(org)
  }

  /**
   * Drops expired entries, which are otherwise only replaced when their organisation asks again;
   * if none expired, the oldest read (the map keeps insertion order).
   */
  private evict(now: number): void {
    for (const [org, cached] of this.cache) {
      if (cached.until <= now) this.cache.delete(org)
    }
    if (this.cache.size < this.maxEntries) return
    const oldest = this.cache.keys().next()
    if (oldest.done !== true) this.cache.delete(oldest.value)
  }

  private async read(org: string): Promise<EffectiveOrgSettings> {
    const stored = (await this.store.getOrgSettings(org)) ?? defaultOrgSettings(org)
    return withEffectiveLimit(stored, this.tiers)
  }
}
