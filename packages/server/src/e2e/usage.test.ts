import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { UsageLedger } from '../usage/usage-ledger.js'
import { FilesServer } from './files-server.js'
import { envelopeOf } from './harness.js'

interface UsageLine {
  line: string
  unit: string
  seconds: number
  requests: number
  free_allowance_seconds: number
  free_seconds: number
  billable_seconds: number
  usd_per_container_hour: string
  amount_usd: string
  workspaces: { workspace: string; seconds: number; requests: number }[]
}

interface UsageReport {
  object: string
  organization: string
  month: string
  starts_at: number
  ends_at: number
  lines: UsageLine[]
  amount_usd: string
}

describe('GET /v1/organization/usage', () => {
  let s: FilesServer
  let clock = new Date('2030-03-15T12:00:00Z')
  let ledger: UsageLedger

  before(async () => {
    s = await FilesServer.start()
    ledger = new UsageLedger(s.store, () => clock)
  })
  after(() => s.close())

  async function report(month: string, key = s.keys.research): Promise<UsageReport> {
    const response = await s.fetch(`/v1/organization/usage?month=${month}`, { key })
    assert.equal(response.status, 200)
    return (await response.json()) as UsageReport
  }

  test('the code_execution line crosses the free allowance with exact arithmetic', async () => {
    const research = { org: 'acme', workspace: 'research' }
    const staging = { org: 'acme', workspace: 'staging' }
    // 2,140 ms bills the 5-second minimum.
    assert.deepEqual(
      await ledger.recordCodeExecution({ ...research, requestId: 'req_a', runMs: [2140] }),
      { seconds: 5, recorded: true },
    )
    // A retried record bills nothing more.
    assert.deepEqual(
      await ledger.recordCodeExecution({ ...research, requestId: 'req_a', runMs: [9000] }),
      { seconds: 5, recorded: false },
    )
    assert.deepEqual(
      await ledger.recordCodeExecution({ ...research, requestId: 'req_none', runMs: [] }),
      { seconds: 0, recorded: false },
    )
    // 49 h 59 min 55 s in staging: with the 5 s above, exactly the 50 free hours.
    await ledger.recordCodeExecution({
      ...staging,
      requestId: 'req_b',
      runMs: [179_995_000],
    })
    let march = await report('2030-03')
    assert.equal(march.lines[0]?.seconds, 180_000)
    assert.equal(march.lines[0]?.free_seconds, 180_000)
    assert.equal(march.lines[0]?.billable_seconds, 0)
    assert.equal(march.amount_usd, '0.00')
    // 20 hours and 1.2 s more: 72,002 s billable = $1.000027..., reported as $1.00.
    await ledger.recordCodeExecution({
      ...research,
      requestId: 'req_c',
      runMs: [36_000_600, 36_000_600],
    })
    march = await report('2030-03')
    assert.deepEqual(march, {
      object: 'organization.usage',
      organization: 'acme',
      month: '2030-03',
      starts_at: Date.UTC(2030, 2, 1) / 1000,
      ends_at: Date.UTC(2030, 3, 1) / 1000,
      lines: [
        {
          line: 'code_execution',
          unit: 'second',
          seconds: 252_002,
          requests: 3,
          free_allowance_seconds: 180_000,
          free_seconds: 180_000,
          billable_seconds: 72_002,
          usd_per_container_hour: '0.05',
          amount_usd: '1.00',
          workspaces: [
            { workspace: 'research', seconds: 72_007, requests: 2 },
            { workspace: 'staging', seconds: 179_995, requests: 1 },
          ],
        },
      ],
      amount_usd: '1.00',
    })
    // Every key of the organisation sees the same report; another organisation sees its own.
    assert.deepEqual(await report('2030-03', s.keys.staging), march)
    const globex = await report('2030-03', s.keys.globex)
    assert.equal(globex.organization, 'globex')
    assert.equal(globex.lines[0]?.seconds, 0)
    assert.deepEqual(globex.lines[0]?.workspaces, [])
  })

  test('the allowance starts again each calendar month (UTC)', async () => {
    clock = new Date('2030-03-31T23:59:59.999Z')
    await ledger.recordCodeExecution({
      org: 'globex',
      workspace: 'research',
      requestId: 'req_end',
      runMs: [180_000_000],
    })
    clock = new Date('2030-04-01T00:00:00.000Z')
    await ledger.recordCodeExecution({
      org: 'globex',
      workspace: 'research',
      requestId: 'req_start',
      runMs: [7_200_000],
    })
    const march = await report('2030-03', s.keys.globex)
    const april = await report('2030-04', s.keys.globex)
    assert.equal(march.lines[0]?.seconds, 180_000)
    assert.equal(march.amount_usd, '0.00')
    assert.equal(april.lines[0]?.seconds, 7200)
    assert.equal(april.lines[0]?.free_seconds, 7200)
    assert.equal(april.amount_usd, '0.00')
  })

  test('without month it reports the current month', async () => {
    const response = await s.fetch('/v1/organization/usage')
    const body = (await response.json()) as UsageReport
    const now = new Date()
    const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`
    assert.equal(body.month, month)
  })

  test('bad months, unknown parameters and missing keys are refused', async () => {
    for (const month of ['2030-13', 'march', '2030-3', '', 'x'.repeat(10_000), "2030-03' OR 1=1"]) {
      const response = await s.fetch(`/v1/organization/usage?month=${encodeURIComponent(month)}`)
      assert.equal(response.status, 400, month.slice(0, 20))
      const envelope = await envelopeOf(response)
      assert.equal(envelope.error.param, 'month')
    }
    const twice = await s.fetch('/v1/organization/usage?month=2030-03&month=2030-04')
    assert.equal(twice.status, 400)
    const unknown = await s.fetch('/v1/organization/usage?org=globex')
    assert.equal((await envelopeOf(unknown)).error.code, 'unknown_parameter')
    const anonymous = await s.fetch('/v1/organization/usage', { key: null })
    assert.equal(anonymous.status, 401)
    const post = await s.fetch('/v1/organization/usage', { method: 'POST' })
    assert.equal(post.status, 405)
  })
})
