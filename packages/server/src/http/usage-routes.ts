import type { FastifyInstance, onRequestHookHandler } from 'fastify'
import { ApiError } from '../errors.js'
import { type BillingMonth, parseMonth } from '../usage/month.js'
import { USD_PER_CONTAINER_HOUR } from '../usage/pricing.js'
import type { UsageLedger } from '../usage/usage-ledger.js'

export interface UsageRoutesOptions {
  ledger: UsageLedger
  authenticate: onRequestHookHandler
}

function invalid(message: string, param: string, code = 'invalid_request'): ApiError {
  return new ApiError(400, 'invalid_request_error', code, message, param)
}

/**
 * `GET /v1/organization/usage?month=YYYY-MM`: the caller's organisation's billing lines for a
 * calendar month (UTC), the current one by default. Any key of the organisation may read it.
 */
export async function usageRoutes(
  app: FastifyInstance,
  options: UsageRoutesOptions,
): Promise<void> {
  const { ledger, authenticate } = options

  app.get('/v1/organization/usage', { onRequest: authenticate }, async (request, reply) => {
    const principal = request.syntic?.principal
    if (!principal) throw new Error('usage route reached without a principal')
    const query = (request.query ?? {}) as Record<string, unknown>
    const unknown = Object.keys(query).find((k) => k !== 'month')
    if (unknown !== undefined) {
      throw invalid(
        `Unknown query parameter ${JSON.stringify(unknown.slice(0, 40))}; use month=YYYY-MM`,
        unknown.slice(0, 40),
        'unknown_parameter',
      )
    }
    let month: BillingMonth | undefined
    if (query.month !== undefined) {
      const parsed = typeof query.month === 'string' ? parseMonth(query.month) : null
      if (parsed === null) throw invalid('month must be a calendar month like 2030-03', 'month')
      month = parsed
    }
    const report = await ledger.codeExecutionReport(principal.org, month)
    reply.type('application/json; charset=utf-8')
    return JSON.stringify({
      object: 'organization.usage',
      organization: principal.org,
      month: report.month.name,
      starts_at: Date.parse(report.month.from) / 1000,
      ends_at: Date.parse(report.month.to) / 1000,
      lines: [
        {
          line: report.line,
          unit: 'second',
          seconds: report.seconds,
          requests: report.requests,
          free_allowance_seconds: report.freeAllowanceSeconds,
          free_seconds: report.freeSeconds,
          billable_seconds: report.billableSeconds,
          usd_per_container_hour: USD_PER_CONTAINER_HOUR,
          amount_usd: report.amountUsd,
          workspaces: report.workspaces,
        },
      ],
      amount_usd: report.amountUsd,
    })
  })
}
