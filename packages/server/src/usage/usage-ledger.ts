import type { Scope, Store } from '../store/port.js'
import { type BillingMonth, monthOf } from './month.js'
import { billableSeconds, FREE_SECONDS_PER_MONTH, monthlyCharge } from './pricing.js'

export interface CodeExecutionUse extends Scope {
  /** The API request the runs belong to: recording it twice bills it once. */
  requestId: string
  /** Each run's duration in milliseconds. */
  runMs: readonly number[]
}

export interface WorkspaceUsage {
  workspace: string
  seconds: number
  requests: number
}

/** The `code_execution` line of an organisation's month. */
export interface CodeExecutionReport {
  line: 'code_execution'
  month: BillingMonth
  seconds: number
  requests: number
  freeAllowanceSeconds: number
  freeSeconds: number
  billableSeconds: number
  amountUsd: string
  workspaces: WorkspaceUsage[]
}

/**
 * The usage ledger: what code execution used, per request, and what it costs per organisation
 * and month (spec: Pricing). `recordCodeExecution` is what the request loop calls once per
 * request that ran code; its seconds are the response's `code_execution_seconds`.
 */
export class UsageLedger {
  constructor(
    private readonly store: Store,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Records a request's runs; returns its billable seconds (0 when it ran nothing, and then
   * records nothing). A repeated request id returns the seconds first recorded.
   */
  async recordCodeExecution(
    use: CodeExecutionUse,
  ): Promise<{ seconds: number; recorded: boolean }> {
    for (const ms of use.runMs) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('run durations must be >= 0 ms')
    }
    const seconds = billableSeconds(use.runMs)
    if (seconds === 0) return { seconds, recorded: false }
    const result = await this.store.recordUsage({
      org: use.org,
      workspace: use.workspace,
      requestId: use.requestId,
      line: 'code_execution',
      seconds,
      rawMs: Math.round(use.runMs.reduce((sum, ms) => sum + ms, 0)),
      createdAt: this.clock().toISOString(),
    })
    return { seconds: result.entry.seconds, recorded: result.recorded }
  }

  /** The organisation's code execution for a month (the current one by default). */
  async codeExecutionReport(
    org: string,
    month: BillingMonth = monthOf(this.clock()),
  ): Promise<CodeExecutionReport> {
    const totals = await this.store.usageTotals(org, 'code_execution', month)
    const seconds = totals.reduce((sum, t) => sum + t.seconds, 0)
    const charge = monthlyCharge(seconds)
    return {
      line: 'code_execution',
      month,
      seconds,
      requests: totals.reduce((sum, t) => sum + t.requests, 0),
      freeAllowanceSeconds: FREE_SECONDS_PER_MONTH,
      freeSeconds: charge.freeSeconds,
      billableSeconds: charge.billableSeconds,
      amountUsd: charge.amountUsd,
      workspaces: totals.map((t) => ({
        workspace: t.workspace,
        seconds: t.seconds,
        requests: t.requests,
      })),
    }
  }
}
