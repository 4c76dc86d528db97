import assert from 'node:assert/strict'
import { after, afterEach, describe, test } from 'node:test'
import { MIGRATIONS } from './migrations.js'
import { InvalidNameError } from './names.js'
import type { Store } from './port.js'
import { generateSecret, SECRET_LENGTH } from './secrets.js'
import {
  postgresBackend,
  sqliteBackend,
  type TestBackend,
  type TestDatabase,
} from './test-databases.js'

const KEY_ID = /^key_[0-9A-Za-z]{22}$/

const INJECTIONS = [
  "' OR '1'='1",
  "x'; DROP TABLE api_keys; --",
  '" OR ""="',
  '1; UPDATE api_keys SET revoked_at = NULL',
  "sk_live_' OR 1=1 --",
  `sk_live_${"'".repeat(SECRET_LENGTH - 8)}`,
  'key_%',
  '%',
  '\u0000',
  'key_\u0000',
  '\uD800',
  `key_${'\u0000'.repeat(22)}`,
  `key_${"'".repeat(22)}`,
]

/** The Store contract, the same for every adapter. */
function conformance(backend: TestBackend): void {
  describe(`${backend.name} store`, () => {
    const open: Store[] = []

    async function fresh(): Promise<{ db: TestDatabase; store: Store }> {
      const db = await backend.create()
      const store = connect(db)
      await store.migrate()
      return { db, store }
    }

    function connect(db: TestDatabase): Store {
      const store = db.connect()
      open.push(store)
      return store
    }

    afterEach(async () => {
      for (const store of open.splice(0)) await store.close()
    })
    after(() => backend.cleanup())

    test('migrate twice applies each migration once', async () => {
      const { db, store } = await fresh()
      await store.migrate()
      const again = connect(db)
      await again.migrate()
      const applied = await db.rows('SELECT version FROM schema_migrations ORDER BY version')
      assert.deepEqual(
        applied.map((r) => Number(r.version)),
        MIGRATIONS.map((m) => m.version),
      )
      const { key } = await again.createKey({ org: 'acme', workspace: 'default' })
      assert.equal((await store.authenticate(key))?.org, 'acme')
    })

    test('two stores migrating an empty database at once both succeed, once', async () => {
      const db = await backend.create()
      const stores = [connect(db), connect(db), connect(db)]
      await Promise.all(stores.map((s) => s.migrate()))
      const applied = await db.rows('SELECT version FROM schema_migrations')
      assert.equal(applied.length, MIGRATIONS.length)
      const { key } = await stores[0]!.createKey({ org: 'acme', workspace: 'default' })
      assert.equal((await stores[2]!.authenticate(key))?.org, 'acme')
    })

    test('a new key authenticates as its org and workspace', async () => {
      const { store } = await fresh()
      const { key, record } = await store.createKey({ org: 'acme', workspace: 'research' })
      assert.match(key, /^sk_live_[0-9A-Za-z]{43}$/)
      assert.match(record.id, KEY_ID)
      assert.equal(record.org, 'acme')
      assert.equal(record.workspace, 'research')
      assert.equal(record.prefix, key.slice(0, 12))
      assert.equal(record.revokedAt, null)
      assert.ok(!Number.isNaN(Date.parse(record.createdAt)))
      assert.deepEqual(await store.authenticate(key), {
        keyId: record.id,
        org: 'acme',
        workspace: 'research',
      })
    })

    test('each key authenticates as its own principal', async () => {
      const { store } = await fresh()
      const a = await store.createKey({ org: 'acme', workspace: 'default' })
      const b = await store.createKey({ org: 'acme', workspace: 'staging' })
      const c = await store.createKey({ org: 'globex', workspace: 'default' })
      assert.notEqual(a.key, b.key)
      assert.deepEqual(await store.authenticate(b.key), {
        keyId: b.record.id,
        org: 'acme',
        workspace: 'staging',
      })
      assert.deepEqual(await store.authenticate(c.key), {
        keyId: c.record.id,
        org: 'globex',
        workspace: 'default',
      })
      assert.equal((await store.authenticate(a.key))?.keyId, a.record.id)
    })

    test('unknown, empty, malformed and oversized keys authenticate as nobody', async () => {
      const { store } = await fresh()
      const { key } = await store.createKey({ org: 'acme', workspace: 'default' })
      const refused = [
        generateSecret(),
        '',
        'sk_live_',
        'sk_live_garbage',
        `sk_live_${'!'.repeat(43)}`,
        `${key} `,
        ` ${key}`,
        key.slice(0, -1),
        `${key}x`,
        key.toUpperCase(),
        key.replace('sk_live_', 'sk_test_'),
        `Bearer ${key}`,
        `sk_live_${'A'.repeat(10 * 1024)}`,
        'x'.repeat(10 * 1024),
        `${key}\u0000`,
        ...INJECTIONS,
      ]
      for (const secret of refused) {
        assert.equal(await store.authenticate(secret), null, JSON.stringify(secret.slice(0, 60)))
      }
      assert.equal((await store.authenticate(key))?.org, 'acme')
    })

    test('SQL in ids, secrets and org filters matches nothing and changes nothing', async () => {
      const { db, store } = await fresh()
      const { key } = await store.createKey({ org: 'acme', workspace: 'default' })
      for (const attempt of INJECTIONS) {
        assert.equal(await store.revokeKey(attempt), null, attempt)
        assert.deepEqual(await store.listKeys({ org: attempt }), [], attempt)
      }
      assert.equal((await store.authenticate(key))?.org, 'acme')
      assert.equal((await db.rows('SELECT id FROM api_keys')).length, 1)
    })

    test('revoking by id refuses the key at once, through every store on the database', async () => {
      const { db, store } = await fresh()
      const other = connect(db)
      await other.migrate()
      const { key, record } = await store.createKey({ org: 'acme', workspace: 'default' })
      const kept = await store.createKey({ org: 'acme', workspace: 'default' })
      assert.equal((await other.authenticate(key))?.keyId, record.id)
      const revoked = await store.revokeKey(record.id)
      assert.equal(revoked?.id, record.id)
      assert.ok(revoked?.revokedAt !== null && !Number.isNaN(Date.parse(revoked?.revokedAt ?? '')))
      assert.equal(await store.authenticate(key), null)
      assert.equal(await other.authenticate(key), null)
      assert.equal((await other.authenticate(kept.key))?.keyId, kept.record.id)
    })

    test('revoking by secret refuses the key at once, through every store on the database', async () => {
      const { db, store } = await fresh()
      const other = connect(db)
      await other.migrate()
      const { key, record } = await store.createKey({ org: 'acme', workspace: 'default' })
      assert.equal((await store.authenticate(key))?.keyId, record.id)
      const revoked = await other.revokeKey(key)
      assert.equal(revoked?.id, record.id)
      assert.equal(revoked?.org, 'acme')
      assert.equal(await store.authenticate(key), null)
      assert.equal(await other.authenticate(key), null)
    })

    test('revoking again keeps the first revocation time', async () => {
      const { store } = await fresh()
      const { key, record } = await store.createKey({ org: 'acme', workspace: 'default' })
      const first = await store.revokeKey(record.id)
      const second = await store.revokeKey(key)
      assert.ok(first?.revokedAt)
      assert.equal(second?.revokedAt, first.revokedAt)
    })

    test('revoking an unknown key returns null', async () => {
      const { store } = await fresh()
      await store.createKey({ org: 'acme', workspace: 'default' })
      assert.equal(await store.revokeKey('key_doesnotexist0000000000'), null)
      assert.equal(await store.revokeKey(generateSecret()), null)
      assert.equal(await store.revokeKey(''), null)
      assert.equal(await store.revokeKey('k'.repeat(10 * 1024)), null)
    })

    test('listings show keys with their prefix, never their secret', async () => {
      const { store } = await fresh()
      const a = await store.createKey({ org: 'acme', workspace: 'default' })
      const b = await store.createKey({ org: 'globex', workspace: 'ops' })
      await store.revokeKey(b.record.id)
      const all = await store.listKeys()
      assert.deepEqual(all.map((k) => k.id).sort(), [a.record.id, b.record.id].sort())
      const text = JSON.stringify(all)
      for (const { key } of [a, b]) {
        assert.ok(!text.includes(key))
        assert.ok(!text.includes(key.slice(12)))
        assert.ok(text.includes(key.slice(0, 12)))
      }
      const globex = await store.listKeys({ org: 'globex' })
      assert.equal(globex.length, 1)
      assert.equal(globex[0]?.workspace, 'ops')
      assert.ok(globex[0]?.revokedAt)
      assert.deepEqual(await store.listKeys({ org: 'nobody' }), [])
    })

    test('keys in an existing org and workspace reuse them', async () => {
      const { db, store } = await fresh()
      await store.createKey({ org: 'acme', workspace: 'default' })
      await store.createKey({ org: 'acme', workspace: 'default' })
      await store.createKey({ org: 'acme', workspace: 'staging' })
      await store.createKey({ org: 'globex', workspace: 'default' })
      assert.equal((await db.rows('SELECT id FROM orgs')).length, 2)
      assert.equal((await db.rows('SELECT id FROM workspaces')).length, 3)
      const orgs = await db.rows('SELECT id FROM orgs')
      for (const row of orgs) assert.match(String(row.id), /^org_[0-9A-Za-z]{22}$/)
      const workspaces = await db.rows('SELECT id FROM workspaces')
      for (const row of workspaces) assert.match(String(row.id), /^wrk_[0-9A-Za-z]{22}$/)
    })

    test('keys created at once in a new org from two stores share one org', async () => {
      const { db, store } = await fresh()
      const other = connect(db)
      await other.migrate()
      const created = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? store : other).createKey({ org: 'initech', workspace: 'default' }),
        ),
      )
      assert.equal(new Set(created.map((c) => c.record.id)).size, 8)
      assert.equal((await db.rows('SELECT id FROM orgs')).length, 1)
      assert.equal((await db.rows('SELECT id FROM workspaces')).length, 1)
    })

    test('the database holds only hashes of secrets', async () => {
      const { db, store } = await fresh()
      const { key } = await store.createKey({ org: 'acme', workspace: 'default' })
      const rows = await db.rows('SELECT * FROM api_keys')
      const stored = JSON.stringify(rows)
      assert.ok(!stored.includes(key))
      assert.ok(!stored.includes(key.slice(12)))
      assert.match(String(rows[0]?.secret_hash), /^[0-9a-f]{64}$/)
    })

    test('bad org and workspace names are refused', async () => {
      const { db, store } = await fresh()
      const bad = ['', "acme'; DROP TABLE orgs; --", 'a\u0000b', 'a'.repeat(65), 'x'.repeat(10240)]
      for (const name of bad) {
        await assert.rejects(store.createKey({ org: name, workspace: 'default' }), InvalidNameError)
        await assert.rejects(store.createKey({ org: 'acme', workspace: name }), InvalidNameError)
      }
      assert.equal((await db.rows('SELECT id FROM orgs')).length, 0)
      await store.createKey({ org: 'a'.repeat(64), workspace: 'A-Z_0.9' })
    })
  })
}

conformance(sqliteBackend())
conformance(postgresBackend())
