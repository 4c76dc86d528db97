/** Organisation and workspace names: 1 to 64 letters, digits, `-`, `_` or `.`. */
const NAME = /^[A-Za-z0-9._-]{1,64}$/

export const DEFAULT_WORKSPACE = 'default'

/**
 * Null when `value` is a valid org or workspace name, else a message that says what is allowed.
 * The message never repeats the value: it may be huge or hold terminal control characters.
 */
export function checkName(kind: 'org' | 'workspace', value: string): string | null {
  if (NAME.test(value)) return null
  const got =
    value.length === 0
      ? 'an empty name'
      : value.length > 64
        ? `${value.length} characters`
        : 'other characters'
  return `${kind} name must be 1 to 64 letters, digits, '-', '_' or '.' (got ${got})`
}

/** A name refused by `checkName`; the store throws it rather than storing an unusable name. */
export class InvalidNameError extends Error {
  override name = 'InvalidNameError'
}

export function assertName(kind: 'org' | 'workspace', value: string): void {
  const problem = checkName(kind, value)
  if (problem !== null) throw new InvalidNameError(problem)
}
