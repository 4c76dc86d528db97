import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { describe, it } from 'node:test'
import { BodyTooLargeError, readBody, readBodyPrefix } from './read-body.js'

function body(...chunks: string[]): Readable {
  return Readable.from(chunks.map((chunk) => Buffer.from(chunk)))
}

describe('reading upstream bodies', () => {
  it('joins chunks, including a character split between them', () => {
    const euro = Buffer.from('€')
    const stream = Readable.from([
      Buffer.from('a'),
      euro.subarray(0, 1),
      euro.subarray(1),
      Buffer.from('b'),
    ])
    return readBody(stream, 100).then((text) => assert.equal(text, 'a€b'))
  })

  it('fails past the limit and drops the stream instead of buffering it', async () => {
    const stream = body('12345', '67890', 'abcde')
    await assert.rejects(readBody(stream, 12), BodyTooLargeError)
    assert.equal(stream.destroyed, true)
    assert.equal(await readBody(body('12345', '6789'), 9), '123456789')
  })

  it('reads only a prefix of an error body and never fails', async () => {
    const stream = body('12345', '67890', 'abcde')
    assert.equal(await readBodyPrefix(stream, 7), '1234567')
    assert.equal(stream.destroyed, true)
    const broken = new Readable({
      read() {
        this.destroy(new Error('socket hang up'))
      },
    })
    assert.equal(await readBodyPrefix(broken, 7), '')
  })
})
