import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { History, type PriorVersion } from './history.js'

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'syntic-history-test-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function prior(i: number): PriorVersion {
  return i % 3 === 0
    ? { kind: 'absent' }
    : { kind: 'snapshot', mode: 0o644, uid: -1, gid: -1, content: Buffer.from(`version ${i}\n`) }
}

/** Pops every entry of `path`, newest first, through the public API. */
async function drain(history: History, path: string) {
  const found: { seq: number; after: string; content: string | null }[] = []
  for (;;) {
    const record = await history.latest(path)
    if (!record) return found
    const content = record.prior.kind === 'snapshot' ? record.prior.content.toString() : null
    found.push({ seq: record.seq, after: record.after, content })
    await history.remove(path, record.seq)
  }
}

describe('history', () => {
  it('gives two writers on one folder distinct entries, none lost or overwritten', async () => {
    // Two instances stand for two processes sharing the history folder.
    const one = new History(dir, 1000)
    const two = new History(dir, 1000)
    const count = 40
    const seqs = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        (i % 2 === 0 ? one : two).push('a.txt', prior(i), `after ${i}`),
      ),
    )
    assert.equal(new Set(seqs).size, count)
    assert.equal(await one.count('a.txt'), count)
    const found = await drain(two, 'a.txt')
    assert.equal(found.length, count)
    for (const entry of found) {
      const i = seqs.indexOf(entry.seq)
      assert.notEqual(i, -1, `entry ${entry.seq} was never handed out`)
      assert.equal(entry.after, `after ${i}`)
      assert.equal(entry.content, i % 3 === 0 ? null : `version ${i}\n`)
    }
  })

  it('prunes only when asked, oldest first', async () => {
    const history = new History(dir, 2)
    for (let i = 1; i <= 4; i++) await history.push('a.txt', prior(i), `after ${i}`)
    assert.equal(await history.count('a.txt'), 4)
    await history.prune('a.txt')
    assert.deepEqual(
      (await drain(history, 'a.txt')).map((e) => e.after),
      ['after 4', 'after 3'],
    )
    const [folder] = readdirSync(dir)
    assert.deepEqual(readdirSync(join(dir, folder ?? '')), [])
  })
})
