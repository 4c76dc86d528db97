import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encodeFrame, FrameDecoder, FrameError } from './frames.js'

describe('frames', () => {
  it('round-trips messages split at any byte', () => {
    const bytes = Buffer.concat([encodeFrame({ op: 'a', text: 'é€' }), encodeFrame({ op: 'b' })])
    for (let cut = 0; cut <= bytes.length; cut++) {
      const decoder = new FrameDecoder(1024)
      const got = [...decoder.push(bytes.subarray(0, cut)), ...decoder.push(bytes.subarray(cut))]
      assert.deepEqual(got, [{ op: 'a', text: 'é€' }, { op: 'b' }])
    }
  })

  it('refuses an oversized length before buffering it', () => {
    const decoder = new FrameDecoder(16)
    assert.throws(() => decoder.push(Buffer.from([0xff, 0xff, 0xff, 0xff, 1])), FrameError)
  })

  it('refuses a frame that is not JSON', () => {
    const body = Buffer.from('{nope')
    const header = Buffer.alloc(4)
    header.writeUInt32BE(body.length)
    assert.throws(() => new FrameDecoder(64).push(Buffer.concat([header, body])), /not JSON/)
  })
})
