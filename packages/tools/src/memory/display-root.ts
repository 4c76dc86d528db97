import { checkDisplayRoot } from '@syntic/protocol'
import { DISPLAY_ROOT } from './paths.js'

/**
 * Checks the application's `displayRoot` and returns it without a trailing slash; a bad value is
 * a programming error, so it throws. Accepts exactly what the API accepts as a memory tool's
 * `root`, so an application can pass the tool entry's root straight through.
 */
export function resolveDisplayRoot(value: unknown): string {
  if (value === undefined) return DISPLAY_ROOT
  const check = checkDisplayRoot(value, 'displayRoot', DISPLAY_ROOT)
  if (!check.ok) throw new TypeError(check.error)
  return check.root
}
