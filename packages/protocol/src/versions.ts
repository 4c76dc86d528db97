/** The request header that pins an API version (spec: Build notes, "the API version header"). */
export const SYNTIC_VERSION_HEADER = 'Syntic-Version'

/**
 * Every API version, oldest first. A version is the date its behaviour was frozen; adding one
 * means appending here and adding what changed (for example a folder of standard tool
 * definitions), never editing what an older version returns.
 */
export const SYNTIC_VERSIONS = ['2026-11-01'] as const
export type SynticVersion = (typeof SYNTIC_VERSIONS)[number]

export const LATEST_SYNTIC_VERSION: SynticVersion = SYNTIC_VERSIONS[SYNTIC_VERSIONS.length - 1]!

export type SynticVersionResolution =
  | { ok: true; version: SynticVersion }
  | { ok: false; error: string }

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** True for a real calendar date written YYYY-MM-DD (so 2026-02-30 and 2026-13-01 are not). */
function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  )
}

/**
 * Maps the `Syntic-Version` header to the version whose behaviour applies.
 *
 * - Absent: the latest version.
 * - A date: the newest version at or before that date. A version's behaviour holds from its date
 *   until the next version's date, so a date means "the API as it was on that day". A client that
 *   pins the day it was written (later than the latest version) or even a future date gets the
 *   current behaviour rather than an error. Versions are dated the day they ship, so a pinned date
 *   in the past never moves; a future date moves to any version released before it.
 * - Malformed (not a real YYYY-MM-DD date) or earlier than the first version: an error naming the
 *   valid values, so the caller knows what to send.
 */
export function resolveSynticVersion(header: string | undefined): SynticVersionResolution {
  if (header === undefined) return { ok: true, version: LATEST_SYNTIC_VERSION }
  const value = header.trim()
  const valid = `Valid values: ${SYNTIC_VERSIONS.join(', ')}, or any later date.`
  if (!isCalendarDate(value)) {
    return {
      ok: false,
      error: `${SYNTIC_VERSION_HEADER} must be a date written YYYY-MM-DD; got ${JSON.stringify(header.slice(0, 40))}. ${valid}`,
    }
  }
  // ISO dates of equal length compare correctly as strings.
  const chosen = SYNTIC_VERSIONS.filter((v) => v <= value).at(-1)
  if (chosen === undefined) {
    return {
      ok: false,
      error: `${SYNTIC_VERSION_HEADER} ${value} is before the first API version. ${valid}`,
    }
  }
  return { ok: true, version: chosen }
}
