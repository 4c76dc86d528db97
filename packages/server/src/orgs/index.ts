export {
  checkContainerLimit,
  checkEgressHost,
  checkTier,
  MAX_CONTAINER_LIMIT,
  MAX_EGRESS_HOSTS,
} from '../store/org-settings-values.js'
export {
  assertMayCreateContainer,
  containerLimitReached,
  toolDisabled,
} from './code-execution-errors.js'
export {
  type EffectiveOrgSettings,
  effectiveContainerLimit,
  type Tiers,
  withEffectiveLimit,
} from './container-limit.js'
export { ORG_SETTINGS_TTL_MS, OrgSettingsReader } from './org-settings-reader.js'
