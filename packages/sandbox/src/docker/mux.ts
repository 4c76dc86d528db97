/**
 * Docker's framing of a container's output when it has no TTY: an 8-byte header (stream: 1 stdout,
 * 2 stderr; three zero bytes; a big-endian length) before each chunk.
 */
export class StreamDemuxer {
  private pending: Buffer = Buffer.alloc(0)

  constructor(
    private readonly onStdout: (chunk: Buffer) => void,
    private readonly onStderr: (chunk: Buffer) => void,
  ) {}

  /** Throws on a header no daemon writes, so that a corrupt stream is noticed at once. */
  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    while (this.pending.length >= 8) {
      const stream = this.pending[0]
      if ((stream !== 0 && stream !== 1 && stream !== 2) || this.pending.readUIntBE(1, 3) !== 0) {
        throw new Error('malformed multiplexed stream header')
      }
      const length = this.pending.readUInt32BE(4)
      if (this.pending.length < 8 + length) return
      const body = this.pending.subarray(8, 8 + length)
      this.pending = this.pending.subarray(8 + length)
      if (stream === 2) this.onStderr(body)
      else this.onStdout(body)
    }
  }
}
