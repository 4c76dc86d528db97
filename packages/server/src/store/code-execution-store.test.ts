import assert from 'node:assert/strict'
import { after, afterEach, describe, test } from 'node:test'
import { looksLikeSortableId, newSortableId } from './ids.js'
import type { ContainerRecord, NewContainer, NewFile, Scope, Store } from './port.js'
import { UnknownScopeError } from './sql-runner.js'
import { postgresBackend, sqliteBackend, type TestBackend } from './test-databases.js'

const ACME: Scope = { org: 'acme', workspace: 'research' }
const STAGING: Scope = { org: 'acme', workspace: 'staging' }
const GLOBEX: Scope = { org: 'globex', workspace: 'research' }

const HOSTILE_IDS = [
  '',
  'file_',
  "file_' OR '1'='1",
  `file_${'\u0000'.repeat(26)}`,
  `file_${'A'.repeat(10_000)}`,
  '%',
  'cntr_%',
  '\uD800',
]

function upload(scope: Scope, filename = 'orders.csv'): NewFile {
  return {
    ...scope,
    filename,
    bytes: 1234,
    mimeType: 'text/csv',
    purpose: 'code_input',
    source: 'upload',
    blobKey: `blob-${filename}`,
    containerId: null,
  }
}

const at = (iso: string) => new Date(iso).toISOString()

/** The files, containers, usage and organisation settings contract, the same for every adapter. */
function conformance(backend: TestBackend): void {
  describe(`${backend.name} store: code execution tables`, () => {
    const open: Store[] = []

    async function fresh(): Promise<Store> {
      const db = await backend.create()
      const store = db.connect()
      open.push(store)
      await store.migrate()
      for (const scope of [ACME, STAGING, GLOBEX]) await store.createKey(scope)
      return store
    }

    afterEach(async () => {
      for (const store of open.splice(0)) await store.close()
    })
    after(() => backend.cleanup())

    test('a file is stored, read back in its workspace only, and deleted once', async () => {
      const store = await fresh()
      const file = await store.createFile({ ...upload(ACME), bytes: 3 * 1024 ** 3 })
      assert.ok(looksLikeSortableId('file_', file.id))
      assert.equal(file.bytes, 3 * 1024 ** 3)
      assert.equal(file.filename, 'orders.csv')
      assert.equal(file.purpose, 'code_input')
      assert.equal(file.source, 'upload')
      assert.equal(file.containerId, null)
      assert.ok(!Number.isNaN(Date.parse(file.createdAt)))
      assert.deepEqual(await store.getFile(ACME, file.id), file)
      assert.equal(await store.getFile(STAGING, file.id), null)
      assert.equal(await store.getFile(GLOBEX, file.id), null)
      assert.equal(await store.deleteFile(STAGING, file.id), null)
      assert.deepEqual(await store.deleteFile(ACME, file.id), file)
      assert.equal(await store.deleteFile(ACME, file.id), null)
      assert.equal(await store.getFile(ACME, file.id), null)
    })

    test('code execution files keep their container', async () => {
      const store = await fresh()
      const container = await stored(store, {
        ...ACME,
        driver: 'local',
        maxLive: 100,
        sandboxId: 'sbx-1',
        createdAt: at('2030-01-01T00:00:00Z'),
        expiresAt: at('2030-01-01T00:30:00Z'),
      })
      const file = await store.createFile({
        ...upload(ACME, 'chart.png'),
        purpose: 'code_output',
        source: 'code_execution',
        containerId: container.id,
      })
      assert.equal((await store.getFile(ACME, file.id))?.containerId, container.id)
      assert.equal(file.source, 'code_execution')
    })

    test('listings are newest first, paged by id, and per workspace', async () => {
      const store = await fresh()
      const made = []
      for (let i = 0; i < 7; i++) made.push(await store.createFile(upload(ACME, `f${i}.csv`)))
      await store.createFile(upload(STAGING, 'other.csv'))
      const newest = made.map((f) => f.id).reverse()
      const first = await store.listFiles(ACME, { limit: 3 })
      assert.deepEqual(
        first.files.map((f) => f.id),
        newest.slice(0, 3),
      )
      assert.equal(first.hasMore, true)
      const second = await store.listFiles(ACME, { limit: 3, after: newest[2]! })
      assert.deepEqual(
        second.files.map((f) => f.id),
        newest.slice(3, 6),
      )
      const last = await store.listFiles(ACME, { limit: 3, after: newest[5]! })
      assert.deepEqual(
        last.files.map((f) => f.id),
        newest.slice(6),
      )
      assert.equal(last.hasMore, false)
      const all = await store.listFiles(ACME, { limit: 100 })
      assert.equal(all.files.length, 7)
      assert.equal(all.hasMore, false)
      assert.deepEqual(
        (await store.listFiles(STAGING, { limit: 10 })).files.map((f) => f.filename),
        ['other.csv'],
      )
      assert.deepEqual((await store.listFiles(GLOBEX, { limit: 10 })).files, [])
    })

    test('hostile ids and scopes match nothing and change nothing', async () => {
      const store = await fresh()
      const file = await store.createFile(upload(ACME))
      for (const id of HOSTILE_IDS) {
        assert.equal(await store.getFile(ACME, id), null)
        assert.equal(await store.deleteFile(ACME, id), null)
        assert.equal(await store.getContainer(ACME, id, at('2030-01-01T00:00:00Z')), null)
        assert.equal(await store.markContainerRemoved(id, at('2030-01-01T00:00:00Z')), false)
      }
      for (const name of ["acme' --", 'a\u0000', '', 'x'.repeat(10_000)]) {
        const scope = { org: name, workspace: 'research' }
        assert.equal(await store.getFile(scope, file.id), null)
        assert.deepEqual((await store.listFiles(scope, { limit: 5 })).files, [])
        assert.equal(await store.countLiveContainers(name, at('2030-01-01T00:00:00Z')), 0)
        assert.equal(await store.getOrgSettings(name), null)
        assert.deepEqual(
          await store.usageTotals(name, 'code_execution', { from: '2000', to: '3000' }),
          [],
        )
      }
      assert.deepEqual(await store.getFile(ACME, file.id), file)
    })

    test('writes into a workspace that does not exist are refused', async () => {
      const store = await fresh()
      const nowhere = { org: 'acme', workspace: 'nowhere' }
      await assert.rejects(store.createFile(upload(nowhere)), UnknownScopeError)
      await assert.rejects(
        store.createContainer({
          ...nowhere,
          driver: 'local',
          maxLive: 100,
          sandboxId: 's',
          createdAt: at('2030-01-01T00:00:00Z'),
          expiresAt: at('2030-01-01T00:30:00Z'),
        }),
        UnknownScopeError,
      )
    })

    test('containers: live until expired or removed, scoped to their workspace', async () => {
      const store = await fresh()
      const created = at('2030-01-01T00:00:00Z')
      const c = await stored(store, {
        ...ACME,
        driver: 'local',
        maxLive: 100,
        sandboxId: 'sbx-internal-1',
        createdAt: created,
        expiresAt: at('2030-01-01T00:30:00Z'),
      })
      assert.ok(looksLikeSortableId('cntr_', c.id))
      assert.deepEqual(c, {
        id: c.id,
        org: 'acme',
        workspace: 'research',
        driver: 'local',
        sandboxId: 'sbx-internal-1',
        status: 'live',
        createdAt: created,
        lastUsedAt: created,
        expiresAt: at('2030-01-01T00:30:00Z'),
        removedAt: null,
      })
      const before = at('2030-01-01T00:29:59.999Z')
      const expiry = at('2030-01-01T00:30:00Z')
      assert.deepEqual(await store.getContainer(ACME, c.id, before), c)
      assert.equal(await store.getContainer(ACME, c.id, expiry), null)
      assert.equal(await store.getContainer(STAGING, c.id, before), null)
      assert.equal(await store.getContainer(GLOBEX, c.id, before), null)

      const touched = await store.touchContainer(c.id, {
        lastUsedAt: at('2030-01-01T00:20:00Z'),
        expiresAt: at('2030-01-01T00:50:00Z'),
      })
      assert.equal(touched?.lastUsedAt, at('2030-01-01T00:20:00Z'))
      assert.equal(touched?.expiresAt, at('2030-01-01T00:50:00Z'))
      assert.equal((await store.getContainer(ACME, c.id, expiry))?.id, c.id)

      assert.equal(await store.markContainerRemoved(c.id, at('2030-01-01T00:21:00Z')), true)
      assert.equal(await store.markContainerRemoved(c.id, at('2030-01-01T00:22:00Z')), false)
      assert.equal(await store.getContainer(ACME, c.id, before), null)
      assert.equal(
        await store.touchContainer(c.id, { lastUsedAt: expiry, expiresAt: expiry }),
        null,
      )
      assert.deepEqual(await store.listLiveContainers(), [])
    })

    test('live containers are counted per organisation and listed for the reaper', async () => {
      const store = await fresh()
      const make = (scope: Scope, expiresAt: string) =>
        stored(store, {
          ...scope,
          driver: 'local',
          maxLive: 100,
          sandboxId: `sbx-${Math.random()}`,
          createdAt: at('2030-01-01T00:00:00Z'),
          expiresAt,
        })
      const now = at('2030-01-01T00:10:00Z')
      const a = await make(ACME, at('2030-01-01T00:30:00Z'))
      const b = await make(STAGING, at('2030-01-01T00:30:00Z'))
      const expired = await make(ACME, at('2030-01-01T00:05:00Z'))
      const g = await make(GLOBEX, at('2030-01-01T00:30:00Z'))
      const removed = await make(ACME, at('2030-01-01T00:30:00Z'))
      await store.markContainerRemoved(removed.id, now)
      assert.equal(await store.countLiveContainers('acme', now), 2)
      assert.equal(await store.countLiveContainers('globex', now), 1)
      assert.equal(await store.countLiveContainers('nobody', now), 0)
      const live = await store.listLiveContainers()
      assert.deepEqual(
        live.map((c) => c.id),
        [a.id, b.id, expired.id, g.id],
      )
      assert.equal(live[0]?.sandboxId, a.sandboxId)
    })

    test('the live-container limit holds against concurrent creations', async () => {
      const store = await fresh()
      const make = (scope: Scope, sandboxId: string, maxLive: number) =>
        store.createContainer({
          ...scope,
          driver: 'local',
          sandboxId,
          createdAt: at('2030-01-01T00:00:00Z'),
          expiresAt: at('2030-01-01T00:30:00Z'),
          maxLive,
        })
      const racing = await Promise.all(
        Array.from({ length: 12 }, (_, i) => make(i % 2 ? ACME : STAGING, `sbx-${i}`, 3)),
      )
      assert.equal(racing.filter((c) => c !== null).length, 3)
      assert.equal(await store.countLiveContainers('acme', at('2030-01-01T00:10:00Z')), 3)
      // Other organisations have their own count; a removed container frees its place.
      assert.notEqual(await make(GLOBEX, 'sbx-g', 1), null)
      assert.equal(await make(GLOBEX, 'sbx-g2', 1), null)
      const first = racing.find((c) => c !== null)
      assert.ok(first)
      await store.markContainerRemoved(first.id, at('2030-01-01T00:01:00Z'))
      assert.notEqual(await make(ACME, 'sbx-again', 3), null)
      assert.equal(await make(ACME, 'sbx-over', 3), null)
      assert.equal(await make(ACME, 'sbx-zero', 0), null)
    })

    test('usage is recorded once per request id and totalled per workspace and month', async () => {
      const store = await fresh()
      const entry = {
        ...ACME,
        requestId: 'req_1',
        line: 'code_execution' as const,
        seconds: 5,
        rawMs: 2140,
        createdAt: at('2030-03-31T23:59:59.999Z'),
      }
      assert.deepEqual(await store.recordUsage(entry), { recorded: true, entry })
      const again = await store.recordUsage({ ...entry, seconds: 99, rawMs: 99_000 })
      assert.deepEqual(again, { recorded: false, entry })
      await store.recordUsage({ ...entry, requestId: 'req_2', seconds: 7, rawMs: 6001 })
      await store.recordUsage({ ...entry, ...STAGING, requestId: 'req_3', seconds: 10, rawMs: 10 })
      await store.recordUsage({ ...entry, ...GLOBEX, requestId: 'req_4', seconds: 500, rawMs: 1 })
      await store.recordUsage({
        ...entry,
        requestId: 'req_5',
        seconds: 1000,
        createdAt: at('2030-04-01T00:00:00Z'),
      })
      const march = { from: at('2030-03-01T00:00:00Z'), to: at('2030-04-01T00:00:00Z') }
      assert.deepEqual(await store.usageTotals('acme', 'code_execution', march), [
        { workspace: 'research', seconds: 12, rawMs: 8141, requests: 2 },
        { workspace: 'staging', seconds: 10, rawMs: 10, requests: 1 },
      ])
      const april = { from: at('2030-04-01T00:00:00Z'), to: at('2030-05-01T00:00:00Z') }
      assert.deepEqual(await store.usageTotals('acme', 'code_execution', april), [
        { workspace: 'research', seconds: 1000, rawMs: 2140, requests: 1 },
      ])
    })

    test('usage recorded at once for one request is stored once', async () => {
      const store = await fresh()
      const entry = {
        ...ACME,
        requestId: 'req_race',
        line: 'code_execution' as const,
        seconds: 5,
        rawMs: 100,
        createdAt: at('2030-03-01T00:00:00Z'),
      }
      const results = await Promise.all(Array.from({ length: 6 }, () => store.recordUsage(entry)))
      assert.equal(results.filter((r) => r.recorded).length, 1)
      const totals = await store.usageTotals('acme', 'code_execution', {
        from: at('2030-03-01T00:00:00Z'),
        to: at('2030-04-01T00:00:00Z'),
      })
      assert.equal(totals[0]?.requests, 1)
    })

    test('organisation settings: defaults, partial updates, unknown orgs', async () => {
      const store = await fresh()
      assert.deepEqual(await store.getOrgSettings('acme'), {
        org: 'acme',
        codeExecution: true,
        containerLimitOverride: null,
        egressAllowlist: [],
        tier: 'default',
        updatedAt: null,
      })
      assert.equal(await store.getOrgSettings('nobody'), null)
      const off = await store.updateOrgSettings('acme', { codeExecution: false })
      assert.equal(off.codeExecution, false)
      assert.equal(off.containerLimitOverride, null)
      assert.ok(off.updatedAt !== null)
      const more = await store.updateOrgSettings('acme', {
        containerLimitOverride: 3,
        egressAllowlist: ['pypi.org', 'files.pythonhosted.org'],
        tier: 'team',
      })
      assert.deepEqual(
        { ...more, updatedAt: null },
        {
          org: 'acme',
          codeExecution: false,
          containerLimitOverride: 3,
          egressAllowlist: ['pypi.org', 'files.pythonhosted.org'],
          tier: 'team',
          updatedAt: null,
        },
      )
      const cleared = await store.updateOrgSettings('acme', { egressAllowlist: [] })
      assert.deepEqual(cleared.egressAllowlist, [])
      assert.equal(cleared.tier, 'team')
      assert.equal(cleared.containerLimitOverride, 3, 'a patch without it keeps the override')
      const zero = await store.updateOrgSettings('acme', { containerLimitOverride: 0 })
      assert.equal(zero.containerLimitOverride, 0)
      const tierOnly = await store.updateOrgSettings('acme', { containerLimitOverride: null })
      assert.equal(tierOnly.containerLimitOverride, null, 'null clears the override')
      assert.equal(tierOnly.tier, 'team')
      assert.equal((await store.getOrgSettings('globex'))?.containerLimitOverride, null)
      const created = await store.updateOrgSettings('initech', { tier: 'enterprise' })
      assert.equal(created.tier, 'enterprise')
      assert.equal(created.codeExecution, true)
      assert.equal((await store.getOrgSettings('initech'))?.tier, 'enterprise')
    })

    test('sortable ids count up within one millisecond', () => {
      const ids = Array.from({ length: 50 }, () => newSortableId('file_', 1_000))
      assert.deepEqual([...ids].sort(), ids)
      assert.equal(new Set(ids).size, 50)
    })
  })
}

conformance(sqliteBackend())
conformance(postgresBackend())

/** A container the test expects to be stored (its limit is far away). */
async function stored(store: Store, container: NewContainer): Promise<ContainerRecord> {
  const record = await store.createContainer(container)
  assert.ok(record, 'the container was not stored')
  return record
}
