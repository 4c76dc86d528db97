/** The spec's Pricing section, in one place. */
export const CODE_EXECUTION_MINIMUM_SECONDS = 5
export const FREE_CONTAINER_HOURS_PER_MONTH = 50
export const FREE_SECONDS_PER_MONTH = FREE_CONTAINER_HOURS_PER_MONTH * 3600
/** $0.05 per container-hour, as cents so that all arithmetic stays in integers. */
export const CENTS_PER_CONTAINER_HOUR = 5
export const USD_PER_CONTAINER_HOUR = '0.05'

/**
 * Billable seconds for one request: its runs' milliseconds summed, rounded up to a whole second,
 * at least the 5-second minimum. Rounding the sum (not each run) bills what ran, once. A request
 * with no runs bills nothing.
 */
export function billableSeconds(runMs: readonly number[]): number {
  if (runMs.length === 0) return 0
  const totalMs = runMs.reduce((sum, ms) => sum + ms, 0)
  return Math.max(CODE_EXECUTION_MINIMUM_SECONDS, Math.ceil(totalMs / 1000))
}

export interface MonthlyCharge {
  /** Seconds used this month. */
  seconds: number
  /** Of them, covered by the free allowance. */
  freeSeconds: number
  /** Of them, charged. */
  billableSeconds: number
  /** The charge in US dollars, to the cent, as a decimal string ("1.25"). */
  amountUsd: string
}

/**
 * One organisation's charge for one month. The allowance covers the month's first 180,000
 * seconds whichever workspace used them. The exact amount is billable seconds x 5 / 3600 cents;
 * it is rounded once per month, half a cent up, never per request.
 */
export function monthlyCharge(seconds: number): MonthlyCharge {
  const freeSeconds = Math.min(seconds, FREE_SECONDS_PER_MONTH)
  const billable = seconds - freeSeconds
  // cents = billable * 5 / 3600 = billable / 720, rounded half up in integers.
  const cents = Math.floor((billable * CENTS_PER_CONTAINER_HOUR * 2 + 3600) / 7200)
  return { seconds, freeSeconds, billableSeconds: billable, amountUsd: formatCents(cents) }
}

export function formatCents(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
}
