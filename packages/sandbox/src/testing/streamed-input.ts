import { createHash } from 'node:crypto'
import { CHUNK_BYTES } from '../kernel-replies.js'

/**
 * Two pieces and a bit of varied bytes, produced in odd-sized chunks into one reused buffer (as a
 * file stream may), with their SHA-256: what the streamed putInput must write exactly.
 */
export function streamedInput(): {
  content: AsyncIterable<Uint8Array>
  digest: string
  bytes: number
} {
  const bytes = 2 * CHUNK_BYTES + 12_345
  const chunkBytes = 1_000_003
  const byteAt = (i: number) => (i * 31 + (i >> 13)) & 0xff
  const hash = createHash('sha256')
  const reused = Buffer.alloc(chunkBytes)
  for (let at = 0; at < bytes; at += chunkBytes) hash.update(fill(reused, at))
  function fill(buffer: Buffer, at: number): Buffer {
    const length = Math.min(chunkBytes, bytes - at)
    for (let i = 0; i < length; i++) buffer[i] = byteAt(at + i)
    return buffer.subarray(0, length)
  }
  async function* content(): AsyncGenerator<Uint8Array> {
    for (let at = 0; at < bytes; at += chunkBytes) yield fill(reused, at)
  }
  return { content: content(), digest: hash.digest('hex'), bytes }
}
