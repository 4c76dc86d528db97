import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import { CREATE_MIGRATIONS_TABLE, MIGRATIONS } from './migrations.js'
import { SQLITE_FILE_NAME } from './sqlite.js'
import { postgresBackend, sqliteBackend, type TestDatabase } from './test-databases.js'

const NOW = '2030-01-01T00:00:00.000Z'

/** The schema as the previous release left it (migrations 1 and 2), with settings in it. */
function previousRelease(): string[] {
  const statements = [CREATE_MIGRATIONS_TABLE]
  for (const m of MIGRATIONS.filter((m) => m.version <= 2)) {
    statements.push(...m.statements)
    statements.push(
      `INSERT INTO schema_migrations (version, applied_at) VALUES (${m.version}, '${NOW}')`,
    )
  }
  const orgs: [string, number, string][] = [
    ['acme', 5, 'team'],
    ['globex', 20, 'default'],
    ['initech', 0, 'enterprise'],
  ]
  for (const [name, limit, tier] of orgs) {
    statements.push(
      `INSERT INTO orgs (id, name, created_at) VALUES ('org_${name}', '${name}', '${NOW}')`,
    )
    statements.push(
      `INSERT INTO org_settings (org_id, code_execution, container_limit, egress_allowlist, tier,
        updated_at) VALUES ('org_${name}', 1, ${limit}, '[]', '${tier}', '${NOW}')`,
    )
  }
  return statements
}

/** A new database, and a way to run any statement on it outside the store. */
interface RawDatabase {
  db: TestDatabase
  exec(sql: string): Promise<void>
}

function migration3(name: string, create: () => Promise<RawDatabase>): void {
  describe(`${name} store: migration 3 (container limit override)`, () => {
    test('keeps limits other than the old default as overrides; the tier decides the rest', async () => {
      const { db, exec } = await create()
      for (const statement of previousRelease()) await exec(statement)
      const store = db.connect()
      try {
        await store.migrate()
        assert.equal((await store.getOrgSettings('acme'))?.containerLimitOverride, 5)
        assert.equal((await store.getOrgSettings('globex'))?.containerLimitOverride, null)
        assert.equal((await store.getOrgSettings('initech'))?.containerLimitOverride, 0)
        assert.equal((await store.getOrgSettings('initech'))?.tier, 'enterprise')

        // The old column mirrors the override for servers of the previous release.
        await store.updateOrgSettings('globex', { containerLimitOverride: 7 })
        const limitOf = async (org: string) =>
          Number(
            (
              await db.rows(
                `SELECT s.container_limit FROM org_settings s JOIN orgs o ON o.id = s.org_id
                  WHERE o.name = '${org}'`,
              )
            )[0]?.container_limit,
          )
        assert.equal(await limitOf('globex'), 7)
        await store.updateOrgSettings('globex', { containerLimitOverride: null })
        assert.equal(await limitOf('globex'), 20)
        await store.updateOrgSettings('acme', { tier: 'enterprise' })
        assert.equal(await limitOf('acme'), 5, 'a patch without the override leaves it')

        await store.migrate()
        assert.equal((await store.getOrgSettings('acme'))?.containerLimitOverride, 5)
      } finally {
        await store.close()
      }
    })
  })
}

const sqlite = sqliteBackend()
const postgres = postgresBackend()
after(async () => {
  await sqlite.cleanup()
  await postgres.cleanup()
})

migration3('sqlite', async () => {
  const db = await sqlite.create()
  const home = sqlite.homes.at(-1)
  assert.ok(home !== undefined)
  // Opening a store makes the database file (and its folder); the schema stays empty.
  await db.connect().close()
  return {
    db,
    async exec(sql) {
      const raw = new Database(join(home, SQLITE_FILE_NAME))
      try {
        raw.exec(sql)
      } finally {
        raw.close()
      }
    },
  }
})
migration3('postgres', async () => {
  const db = await postgres.create()
  return {
    db,
    async exec(sql) {
      await db.rows(sql)
    },
  }
})
