import type { TierConfig } from '../config.js'
import { DEFAULT_CONTAINER_LIMIT, DEFAULT_TIER } from '../store/org-settings-table.js'
import type { OrgSettings } from '../store/port.js'

/** Tier names to what they set, as in the server's config file. */
export type Tiers = Readonly<Record<string, TierConfig>>

/** An organisation's settings with the container limit it gets once its tier is applied. */
export interface EffectiveOrgSettings extends OrgSettings {
  /** Live containers allowed at once; past it 429 `container_limit_reached`. */
  containerLimit: number
}

// Own keys only: a tier named like an Object.prototype member ("constructor") is just unknown.
function tierLimit(tiers: Tiers, name: string): number | undefined {
  return Object.hasOwn(tiers, name) ? tiers[name]?.containerLimit : undefined
}

/**
 * The organisation's override, else its tier's limit, else the `default` tier's, else 20. A tier
 * the config does not name falls back like an unset one: `syntic orgs set --tier` may run where
 * the server's config is not.
 */
export function effectiveContainerLimit(
  settings: Pick<OrgSettings, 'containerLimitOverride' | 'tier'>,
  tiers: Tiers = {},
): number {
  return (
    settings.containerLimitOverride ??
    tierLimit(tiers, settings.tier) ??
    tierLimit(tiers, DEFAULT_TIER) ??
    DEFAULT_CONTAINER_LIMIT
  )
}

export function withEffectiveLimit(settings: OrgSettings, tiers: Tiers = {}): EffectiveOrgSettings {
  return { ...settings, containerLimit: effectiveContainerLimit(settings, tiers) }
}
