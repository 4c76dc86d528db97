import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { sqliteBackend } from '../store/test-databases.js'
import { assertMayCreateContainer } from './code-execution-errors.js'
import { OrgSettingsReader } from './org-settings-reader.js'

const backend = sqliteBackend()
after(() => backend.cleanup())

test('settings are read once per ttl, defaults for unknown orgs, fresh after invalidate', async () => {
  const store = (await backend.create()).connect()
  await store.migrate()
  let now = 1_000
  const reader = new OrgSettingsReader(store, { ttlMs: 5_000, clock: () => now })
  assert.equal((await reader.get('acme')).codeExecution, true)
  assert.equal((await reader.get('nobody')).containerLimit, 20)
  await store.updateOrgSettings('acme', { codeExecution: false, containerLimitOverride: 2 })
  assert.equal((await reader.get('acme')).codeExecution, true, 'cached within the ttl')
  now += 5_000
  assert.equal((await reader.get('acme')).codeExecution, false, 'read again after the ttl')
  await store.updateOrgSettings('acme', { codeExecution: true })
  reader.invalidate('acme')
  assert.equal((await reader.get('acme')).codeExecution, true)
  await store.close()
})

test('the cache holds at most maxEntries organisations, dropping the oldest read', async () => {
  const store = (await backend.create()).connect()
  await store.migrate()
  const reader = new OrgSettingsReader(store, { ttlMs: 60_000, maxEntries: 2, clock: () => 1_000 })
  await reader.get('first')
  await reader.get('second')
  await store.updateOrgSettings('first', { codeExecution: false })
  await store.updateOrgSettings('second', { codeExecution: false })
  await reader.get('third')
  assert.equal((await reader.get('first')).codeExecution, false, 'evicted, so read again')
  assert.equal((await reader.get('third')).codeExecution, true, 'still cached')
  await store.close()
})

test('the spec errors: 403 tool_disabled, 429 container_limit_reached', async () => {
  const base = {
    org: 'acme',
    codeExecution: true,
    containerLimitOverride: null,
    containerLimit: 2,
    egressAllowlist: [],
    tier: 'team',
    updatedAt: null,
  }
  assert.doesNotThrow(() => assertMayCreateContainer(base, 1))
  assert.throws(
    () => assertMayCreateContainer(base, 2),
    (e: { status: number; code: string; message: string }) =>
      e.status === 429 && e.code === 'container_limit_reached' && e.message.includes('team'),
  )
  assert.throws(
    () => assertMayCreateContainer({ ...base, codeExecution: false }, 0),
    (e: { status: number; code: string }) => e.status === 403 && e.code === 'tool_disabled',
  )
})
