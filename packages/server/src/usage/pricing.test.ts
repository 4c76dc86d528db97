import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseMonth } from './month.js'
import { billableSeconds, FREE_SECONDS_PER_MONTH, monthlyCharge } from './pricing.js'

test('a request bills its runs summed, rounded up, at least 5 seconds', () => {
  assert.equal(billableSeconds([]), 0)
  assert.equal(billableSeconds([0]), 5)
  assert.equal(billableSeconds([2140]), 5)
  assert.equal(billableSeconds([4999]), 5)
  assert.equal(billableSeconds([5000]), 5)
  assert.equal(billableSeconds([5001]), 6)
  assert.equal(billableSeconds([2140, 3900]), 7)
  assert.equal(
    billableSeconds([400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 400]),
    6,
  )
  assert.equal(billableSeconds([120_000, 120_000]), 240)
})

test('the free allowance is 50 container-hours; beyond it $0.05 per hour, to the cent', () => {
  assert.equal(FREE_SECONDS_PER_MONTH, 180_000)
  assert.deepEqual(monthlyCharge(0), {
    seconds: 0,
    freeSeconds: 0,
    billableSeconds: 0,
    amountUsd: '0.00',
  })
  assert.deepEqual(monthlyCharge(180_000), {
    seconds: 180_000,
    freeSeconds: 180_000,
    billableSeconds: 0,
    amountUsd: '0.00',
  })
  assert.deepEqual(monthlyCharge(180_001), {
    seconds: 180_001,
    freeSeconds: 180_000,
    billableSeconds: 1,
    amountUsd: '0.00',
  })
  // 72,000 s = 20 h = $1.00 exactly.
  assert.equal(monthlyCharge(180_000 + 72_000).amountUsd, '1.00')
  // 359 s = 0.4986 cent rounds down; 360 s = 0.5 cent rounds up.
  assert.equal(monthlyCharge(180_000 + 359).amountUsd, '0.00')
  assert.equal(monthlyCharge(180_000 + 360).amountUsd, '0.01')
  assert.equal(monthlyCharge(180_000 + 720).amountUsd, '0.01')
  // A whole 30-day month of one container: 720 h - 50 h free = 670 h = $33.50.
  assert.equal(monthlyCharge(720 * 3600).amountUsd, '33.50')
  assert.equal(monthlyCharge(180_000 + 3600 * 2000).amountUsd, '100.00')
})

test('months are calendar months in UTC', () => {
  assert.deepEqual(parseMonth('2030-12'), {
    name: '2030-12',
    from: '2030-12-01T00:00:00.000Z',
    to: '2031-01-01T00:00:00.000Z',
  })
  assert.equal(parseMonth('2030-02')?.to, '2030-03-01T00:00:00.000Z')
  for (const bad of [
    '2030-13',
    '2030-00',
    '2030-1',
    '30-01',
    '2030-01-01',
    '',
    'x'.repeat(1000),
    '1969-12',
  ]) {
    assert.equal(parseMonth(bad), null, bad)
  }
})
