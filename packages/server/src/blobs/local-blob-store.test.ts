import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { after, test } from 'node:test'
import { LocalBlobStore, newBlobKey } from './local-blob-store.js'
import { BlobTooLargeError } from './port.js'

const scratch = mkdtempSync(join(tmpdir(), 'syntic-blobs-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

let n = 0
function store(): LocalBlobStore {
  return new LocalBlobStore(join(scratch, `home-${n++}`))
}

function chunks(...parts: string[]): Readable {
  return Readable.from(parts.map((p) => Buffer.from(p)))
}

test('a blob is stored sharded, 0600 in 0700 folders, read back and deleted', async () => {
  const blobs = store()
  const key = newBlobKey()
  assert.deepEqual(await blobs.put(key, chunks('hello ', 'world'), { maxBytes: 11 }), {
    bytes: 11,
  })
  const path = blobs.pathOf(key)
  assert.match(relative(blobs.root, path), /^[0-9a-f]{2}\/[0-9a-f]{2}\/[A-Za-z0-9_-]{22}$/)
  assert.equal(statSync(path).mode & 0o777, 0o600)
  assert.equal(statSync(join(path, '..')).mode & 0o777, 0o700)
  assert.equal(statSync(blobs.root).mode & 0o777, 0o700)
  assert.equal(await text((await blobs.get(key))!), 'hello world')
  await blobs.delete(key)
  assert.equal(await blobs.get(key), null)
  await blobs.delete(key)
})

test('past the cap nothing is kept, not even a temporary file', async () => {
  const blobs = store()
  const key = newBlobKey()
  await assert.rejects(blobs.put(key, chunks('12345', '67890', 'x'), { maxBytes: 10 }), (e) => {
    assert.ok(e instanceof BlobTooLargeError)
    assert.equal(e.maxBytes, 10)
    return true
  })
  assert.equal(await blobs.get(key), null)
  assert.deepEqual(readdirSync(join(blobs.root, 'tmp')), [])
})

test('a source that fails mid-way leaves nothing behind', async () => {
  const blobs = store()
  const key = newBlobKey()
  async function* broken() {
    yield Buffer.from('partial')
    throw new Error('connection reset')
  }
  await assert.rejects(blobs.put(key, broken(), { maxBytes: 100 }), /connection reset/)
  assert.equal(await blobs.get(key), null)
  assert.deepEqual(readdirSync(join(blobs.root, 'tmp')), [])
})

test('an empty blob is a blob', async () => {
  const blobs = store()
  const key = newBlobKey()
  assert.deepEqual(await blobs.put(key, chunks(), { maxBytes: 0 }), { bytes: 0 })
  assert.equal(await text((await blobs.get(key))!), '')
})

test('keys that could leave the folder are refused', async () => {
  const blobs = store()
  for (const key of ['', '../x', 'a/b', '..', 'a\u0000', 'k'.repeat(129), '%2e%2e']) {
    assert.throws(() => blobs.pathOf(key), /blob key/)
    await assert.rejects(blobs.put(key, chunks('x'), { maxBytes: 10 }), /blob key/)
    await assert.rejects(blobs.get(key), /blob key/)
  }
})

test('writing the same key again replaces the blob whole', async () => {
  const blobs = store()
  const key = newBlobKey()
  await blobs.put(key, chunks('first version'), { maxBytes: 100 })
  await blobs.put(key, chunks('second'), { maxBytes: 100 })
  assert.equal(await text((await blobs.get(key))!), 'second')
})
