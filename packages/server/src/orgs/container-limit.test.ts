import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { sqliteBackend } from '../store/test-databases.js'
import { assertMayCreateContainer } from './code-execution-errors.js'
import { effectiveContainerLimit, type Tiers, withEffectiveLimit } from './container-limit.js'
import { OrgSettingsReader } from './org-settings-reader.js'

const backend = sqliteBackend()
after(() => backend.cleanup())

const TIERS: Tiers = { default: { containerLimit: 8 }, team: { containerLimit: 50 } }

test('the effective limit: override, else the tier, else the default tier, else 20', () => {
  const limit = (tier: string, override: number | null, tiers?: Tiers) =>
    effectiveContainerLimit({ tier, containerLimitOverride: override }, tiers)
  assert.equal(limit('team', 3, TIERS), 3, 'an override wins')
  assert.equal(limit('team', 0, TIERS), 0, 'an override of 0 is kept, not skipped')
  assert.equal(limit('team', null, TIERS), 50, "the tier's limit")
  assert.equal(limit('enterprise', null, TIERS), 8, "an unconfigured tier gets the default tier's")
  assert.equal(limit('default', null, TIERS), 8)
  assert.equal(limit('team', null, { team: { containerLimit: 50 } }), 50)
  assert.equal(limit('enterprise', null, { team: { containerLimit: 50 } }), 20)
  assert.equal(limit('team', null), 20, 'no tiers configured')
  assert.equal(limit('team', null, { team: { containerLimit: 0 } }), 0, 'a tier of 0 is kept')
  for (const hostile of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    assert.equal(limit(hostile, null, TIERS), 8, `${hostile} is an unknown tier`)
  }
})

test('the 429 names the tier and the limit, and says when the limit is an override', () => {
  const base = {
    org: 'acme',
    codeExecution: true,
    containerLimitOverride: null,
    egressAllowlist: [],
    tier: 'team',
    updatedAt: null,
  }
  const fromTier = withEffectiveLimit(base, TIERS)
  assert.doesNotThrow(() => assertMayCreateContainer(fromTier, 49))
  assert.throws(
    () => assertMayCreateContainer(fromTier, 50),
    (e: { status: number; code: string; message: string }) =>
      e.status === 429 &&
      e.code === 'container_limit_reached' &&
      e.message.includes('has 50 live containers, the limit of its tier (team)'),
  )
  const overridden = withEffectiveLimit({ ...base, containerLimitOverride: 2 }, TIERS)
  assert.throws(
    () => assertMayCreateContainer(overridden, 2),
    (e: { message: string }) =>
      e.message.includes('has 2 live containers, the limit set for it (its tier: team)'),
  )
})

test('the reader applies its tiers to stored and unknown organisations', async () => {
  const store = (await backend.create()).connect()
  await store.migrate()
  try {
    const reader = new OrgSettingsReader(store, { tiers: TIERS })
    await store.updateOrgSettings('acme', { tier: 'team' })
    await store.updateOrgSettings('globex', { tier: 'team', containerLimitOverride: 4 })
    await store.updateOrgSettings('initech', { tier: 'unlisted' })
    assert.equal((await reader.get('acme')).containerLimit, 50)
    assert.equal((await reader.get('globex')).containerLimit, 4)
    assert.equal((await reader.get('initech')).containerLimit, 8)
    assert.equal((await reader.get('nobody')).containerLimit, 8, 'unknown: the default tier')
    assert.equal((await new OrgSettingsReader(store).get('acme')).containerLimit, 20)
  } finally {
    await store.close()
  }
})
