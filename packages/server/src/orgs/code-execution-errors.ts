import { ApiError } from '../errors.js'
import type { EffectiveOrgSettings } from './container-limit.js'

/** 403 `tool_disabled`: the organisation turned code execution off. */
export function toolDisabled(): ApiError {
  return new ApiError(
    403,
    'permission_error',
    'tool_disabled',
    'Code execution is turned off for your organisation; an administrator can turn it on with `syntic orgs set <org> --code-execution on`',
  )
}

/** 429 `container_limit_reached`: the organisation has as many live containers as its tier allows. */
export function containerLimitReached(settings: EffectiveOrgSettings): ApiError {
  const whose =
    settings.containerLimitOverride === null
      ? `the limit of its tier (${settings.tier})`
      : `the limit set for it (its tier: ${settings.tier})`
  return new ApiError(
    429,
    'rate_limit_error',
    'container_limit_reached',
    `Your organisation has ${settings.containerLimit} live containers, ${whose}. Reuse one with {"container": {"id": "cntr_..."}}, or wait until idle ones expire (30 minutes).`,
  )
}

/**
 * Throws the spec's error when the organisation may not start another container: code execution
 * off (403) or `live` containers already at its limit (429).
 */
export function assertMayCreateContainer(settings: EffectiveOrgSettings, live: number): void {
  if (!settings.codeExecution) throw toolDisabled()
  if (live >= settings.containerLimit) throw containerLimitReached(settings)
}
