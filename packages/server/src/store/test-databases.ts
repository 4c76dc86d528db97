import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import type { Store } from './port.js'
import { PostgresStore } from './postgres.js'
import { SQLITE_FILE_NAME, SqliteStore } from './sqlite.js'

/** One empty database for a test: stores on it and a way to look inside. */
export interface TestDatabase {
  /** A new store on this database, not yet migrated. */
  connect(): Store
  /** Rows of a query, for assertions on what the store wrote. */
  rows(sql: string): Promise<Record<string, unknown>[]>
}

/** Makes empty test databases of one kind and removes them all at the end. */
export interface TestBackend {
  name: 'sqlite' | 'postgres'
  create(): Promise<TestDatabase>
  cleanup(): Promise<void>
}

export const TEST_DATABASE_URL_VARIABLE = 'SYNTIC_TEST_DATABASE_URL'

/** A fresh temporary home folder per database; `home` is where the store's file lives. */
export function sqliteBackend(): TestBackend & { homes: string[] } {
  const homes: string[] = []
  return {
    name: 'sqlite',
    homes,
    async create() {
      const home = join(mkdtempSync(join(tmpdir(), 'syntic-store-')), 'home')
      homes.push(home)
      return {
        connect: () => new SqliteStore(home),
        async rows(sql) {
          const db = new Database(join(home, SQLITE_FILE_NAME), { readonly: true })
          try {
            return db.prepare<[], Record<string, unknown>>(sql).all()
          } finally {
            db.close()
          }
        },
      }
    },
    async cleanup() {
      for (const home of homes) rmSync(join(home, '..'), { recursive: true, force: true })
    },
  }
}

/** The URL of the test PostgreSQL, or a failure that says how to get one. */
export function testDatabaseUrl(): string {
  const url = process.env[TEST_DATABASE_URL_VARIABLE]
  if (url === undefined || url === '') {
    throw new Error(
      `${TEST_DATABASE_URL_VARIABLE} is not set: run \`node scripts/postgres.mjs\` and set ${TEST_DATABASE_URL_VARIABLE} to the URL it prints`,
    )
  }
  return url
}

/** The URL with every connection's search_path set to `schema`, so its tables land there. */
export function urlWithSchema(url: string, schema: string): string {
  const u = new URL(url)
  u.searchParams.set('options', `-c search_path=${schema}`)
  return u.toString()
}

/** A fresh schema per database in the test PostgreSQL; all dropped at cleanup. */
export function postgresBackend(): TestBackend {
  const schemas: string[] = []
  let admin: pg.Client | undefined
  async function adminClient(): Promise<pg.Client> {
    if (admin === undefined) {
      const client = new pg.Client({ connectionString: testDatabaseUrl() })
      await client.connect()
      admin = client
    }
    return admin
  }
  return {
    name: 'postgres',
    async create() {
      const client = await adminClient()
      const schema = `syntic_test_${randomBytes(6).toString('hex')}`
      await client.query(`CREATE SCHEMA ${schema}`)
      schemas.push(schema)
      const url = urlWithSchema(testDatabaseUrl(), schema)
      return {
        connect: () => new PostgresStore(url),
        async rows(sql) {
          await client.query(`SET search_path TO ${schema}`)
          return (await client.query<Record<string, unknown>>(sql)).rows
        },
      }
    },
    async cleanup() {
      if (admin === undefined) return
      for (const schema of schemas) await admin.query(`DROP SCHEMA ${schema} CASCADE`)
      await admin.end()
    },
  }
}
