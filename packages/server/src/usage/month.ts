const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/

export interface BillingMonth {
  /** `YYYY-MM`. */
  name: string
  /** First instant of the month, UTC, ISO 8601. */
  from: string
  /** First instant of the next month. */
  to: string
}

/** The calendar month (UTC) named `YYYY-MM`, or null when `name` is not one. */
export function parseMonth(name: string): BillingMonth | null {
  const match = MONTH.exec(name)
  if (match === null) return null
  const year = Number(match[1])
  const month = Number(match[2])
  if (year < 1970) return null
  return {
    name,
    from: new Date(Date.UTC(year, month - 1, 1)).toISOString(),
    to: new Date(Date.UTC(year, month, 1)).toISOString(),
  }
}

/** The calendar month (UTC) holding `at`. */
export function monthOf(at: Date): BillingMonth {
  const name = `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`
  return parseMonth(name)!
}
