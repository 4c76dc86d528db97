export { type BillingMonth, monthOf, parseMonth } from './month.js'
export {
  billableSeconds,
  CODE_EXECUTION_MINIMUM_SECONDS,
  FREE_CONTAINER_HOURS_PER_MONTH,
  FREE_SECONDS_PER_MONTH,
  type MonthlyCharge,
  monthlyCharge,
  USD_PER_CONTAINER_HOUR,
} from './pricing.js'
export {
  type CodeExecutionReport,
  type CodeExecutionUse,
  UsageLedger,
  type WorkspaceUsage,
} from './usage-ledger.js'
