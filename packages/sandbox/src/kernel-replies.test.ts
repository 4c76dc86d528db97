import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { pieces } from './kernel-replies.js'

describe('pieces', () => {
  it('re-cuts a stream into pieces of the size, the last one shorter', async () => {
    const source = (async function* () {
      for (const text of ['ab', 'cdefg', '', 'h', 'ijklmnopq']) yield Buffer.from(text)
    })()
    const out: string[] = []
    for await (const piece of pieces(source, 4)) out.push(piece.toString())
    assert.deepEqual(out, ['abcd', 'efgh', 'ijkl', 'mnop', 'q'])
  })

  it('reads no further ahead than one piece needs', async () => {
    let pulled = 0
    const source = (async function* () {
      for (let i = 0; i < 100; i++) {
        pulled++
        yield Buffer.from([i])
      }
    })()
    const iterator = pieces(source, 8)[Symbol.asyncIterator]()
    const first = await iterator.next()
    assert.deepEqual([...(first.value as Buffer)], [0, 1, 2, 3, 4, 5, 6, 7])
    assert.equal(pulled, 8)
    await iterator.return?.(undefined)
  })

  it('copies what it holds, so a producer may reuse its buffer', async () => {
    const reused = Buffer.alloc(3)
    const source = (async function* () {
      for (const byte of [1, 2, 3]) {
        reused.fill(byte)
        yield reused
      }
    })()
    const out: number[][] = []
    for await (const piece of pieces(source, 4)) out.push([...piece])
    assert.deepEqual(out, [[1, 1, 1, 2], [2, 2, 3, 3], [3]])
  })

  it('yields nothing for empty content and refuses chunks that are not bytes', async () => {
    const none: Buffer[] = []
    for await (const piece of pieces(new Uint8Array(0), 4)) none.push(piece)
    assert.deepEqual(none, [])
    const strings = (async function* () {
      yield 'text' as unknown as Uint8Array
    })()
    await assert.rejects(async () => {
      for await (const _ of pieces(strings, 4)) {
        // Drained for its error.
      }
    }, TypeError)
  })
})
