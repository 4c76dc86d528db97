/** Length-prefixed JSON, the kernel's protocol: a 4-byte big-endian length, then UTF-8 JSON. */

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8')
  const header = Buffer.alloc(4)
  header.writeUInt32BE(body.length)
  return Buffer.concat([header, body])
}

export class FrameError extends Error {}

/**
 * Splits a byte stream into decoded messages. Holds at most one frame of `maxFrameBytes`: the
 * sandbox writes this stream, so a bigger length is refused rather than buffered.
 */
export class FrameDecoder {
  private chunks: Buffer[] = []
  private buffered = 0

  constructor(private readonly maxFrameBytes: number) {}

  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk)
    this.buffered += chunk.length
    const messages: unknown[] = []
    while (this.buffered >= 4) {
      const head = this.peek(4)
      const length = head.readUInt32BE(0)
      if (length > this.maxFrameBytes) {
        throw new FrameError(`frame of ${length} bytes exceeds ${this.maxFrameBytes}`)
      }
      if (this.buffered < 4 + length) break
      const frame = this.take(4 + length).subarray(4)
      try {
        messages.push(JSON.parse(frame.toString('utf8')))
      } catch {
        throw new FrameError('frame is not JSON')
      }
    }
    return messages
  }

  private peek(n: number): Buffer {
    const first = this.chunks[0]!
    if (first.length >= n) return first.subarray(0, n)
    const joined = Buffer.concat(this.chunks)
    this.chunks = [joined]
    return joined.subarray(0, n)
  }

  private take(n: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
    this.chunks = joined.length > n ? [joined.subarray(n)] : []
    this.buffered -= n
    return joined.subarray(0, n)
  }
}
