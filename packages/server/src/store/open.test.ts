import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { type AddressInfo, createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import pg from 'pg'
import { openStore } from './open.js'
import { PostgresStore } from './postgres.js'
import { generateSecret } from './secrets.js'
import { SQLITE_FILE_NAME, SqliteStore } from './sqlite.js'
import { testDatabaseUrl, urlWithSchema } from './test-databases.js'

const scratch = mkdtempSync(join(tmpdir(), 'syntic-open-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

test('without a database URL the store is SQLite in the home folder, migrated', async () => {
  for (const databaseUrl of [undefined, '']) {
    const home = join(scratch, `home-${databaseUrl === undefined ? 'unset' : 'empty'}`)
    const store = await openStore({ home, ...(databaseUrl === undefined ? {} : { databaseUrl }) })
    try {
      assert.ok(store instanceof SqliteStore)
      assert.ok(existsSync(join(home, SQLITE_FILE_NAME)))
      const { key } = await store.createKey({ org: 'acme', workspace: 'default' })
      assert.equal((await store.authenticate(key))?.org, 'acme')
    } finally {
      await store.close()
    }
  }
})

test('a URL of another kind is refused without repeating its password', async () => {
  const home = join(scratch, 'refused')
  for (const databaseUrl of [
    'mysql://root:hunter2@db.internal/syntic',
    'sqlite:///var/lib/syntic.db',
    'hunter2',
    'http://user:hunter2@localhost:5432/db',
    `x${'y'.repeat(10240)}://hunter2`,
  ]) {
    await assert.rejects(openStore({ home, databaseUrl }), (error: Error) => {
      assert.match(error.message, /must start with postgres:\/\/ or postgresql:\/\//)
      assert.ok(!error.message.includes('hunter2'), error.message)
      assert.ok(error.message.length < 300)
      return true
    })
  }
  assert.ok(!existsSync(home))
})

test('a postgres URL opens PostgreSQL and migrates it', async () => {
  const base = testDatabaseUrl()
  const schema = `syntic_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  try {
    await admin.query(`CREATE SCHEMA ${schema}`)
    for (const scheme of ['postgres:', 'postgresql:']) {
      const url = new URL(urlWithSchema(base, schema))
      url.protocol = scheme
      const store = await openStore({ home: join(scratch, 'unused'), databaseUrl: url.toString() })
      try {
        assert.ok(store instanceof PostgresStore)
        const { key } = await store.createKey({ org: 'acme', workspace: 'default' })
        assert.equal((await store.authenticate(key))?.org, 'acme')
      } finally {
        await store.close()
      }
    }
    const tables = await admin.query(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
      [schema],
    )
    assert.deepEqual(
      tables.rows.map((r: { table_name: string }) => r.table_name),
      [
        'api_keys',
        'containers',
        'files',
        'org_settings',
        'orgs',
        'schema_migrations',
        'usage_ledger',
        'workspaces',
      ],
    )
    assert.ok(!existsSync(join(scratch, 'unused')))
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await admin.end()
  }
})

test('an unreachable PostgreSQL fails openStore and leaves nothing open', async () => {
  // Port 1 on loopback: nothing listens there, so the connection is refused at once.
  const databaseUrl = 'postgresql://nobody:hunter2@127.0.0.1:1/none'
  await assert.rejects(openStore({ home: scratch, databaseUrl }), /ECONNREFUSED/)
})

/**
 * A TCP server standing in for a stalled PostgreSQL: it never answers, or (`login`) it lets the
 * client log in (AuthenticationOk, ReadyForQuery) and then never answers a query.
 */
async function stalledDatabase(login: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.once('data', () => {
      if (login) socket.write(Buffer.from([82, 0, 0, 0, 8, 0, 0, 0, 0, 90, 0, 0, 0, 5, 73]))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `postgresql://nobody:hunter2@127.0.0.1:${port}/none`,
    async stop() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

test('a PostgreSQL that stalls fails each call instead of hanging it', {
  timeout: 20_000,
}, async () => {
  for (const [login, message] of [
    [false, /timeout/i],
    [true, /Query read timeout/],
  ] as const) {
    const database = await stalledDatabase(login)
    const store = new PostgresStore(database.url, { timeoutMs: 200 })
    try {
      await assert.rejects(store.authenticate(generateSecret()), message)
    } finally {
      await database.stop()
      await store.close()
    }
  }
})
