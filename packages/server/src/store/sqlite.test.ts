import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { SQLITE_FILE_NAME, SqliteStore } from './sqlite.js'

const scratch = mkdtempSync(join(tmpdir(), 'syntic-sqlite-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

function mode(path: string): number {
  return statSync(path).mode & 0o777
}

test('the home folder is made 0700 and the database files 0600', async () => {
  const home = join(scratch, 'modes', 'nested', 'home')
  const store = new SqliteStore(home)
  await store.migrate()
  await store.createKey({ org: 'acme', workspace: 'default' })
  assert.equal(store.file, join(home, SQLITE_FILE_NAME))
  assert.equal(mode(home), 0o700)
  assert.equal(mode(join(scratch, 'modes')), 0o700)
  const files = readdirSync(home)
  assert.ok(files.includes(`${SQLITE_FILE_NAME}-wal`), files.join(' '))
  for (const file of files) assert.equal(mode(join(home, file)), 0o600, file)
  await store.close()
})

test('an existing database file readable by others is made 0600', async () => {
  const home = join(scratch, 'wide')
  const first = new SqliteStore(home)
  await first.close()
  const file = join(home, SQLITE_FILE_NAME)
  writeFileSync(file, '', { mode: 0o644 })
  const store = new SqliteStore(home)
  await store.migrate()
  assert.equal(mode(file), 0o600)
  await store.close()
})

test('no secret reaches the database files, only its hash and display prefix', async () => {
  const home = join(scratch, 'bytes')
  const store = new SqliteStore(home)
  await store.migrate()
  const keys: string[] = []
  for (let i = 0; i < 20; i++)
    keys.push((await store.createKey({ org: 'acme', workspace: 'w' })).key)
  await store.revokeKey(keys[0]!)
  // Inspected while the WAL is live and again after a checkpoint folded it into the main file.
  const inspect = () => {
    const bytes = Buffer.concat(readdirSync(home).map((f) => readFileSync(join(home, f))))
    for (const key of keys) {
      assert.equal(bytes.indexOf(key), -1)
      assert.equal(bytes.indexOf(key.slice(12)), -1)
      assert.notEqual(bytes.indexOf(key.slice(0, 12)), -1)
    }
  }
  inspect()
  await store.close()
  inspect()
})
