// Splits a mod's output into lines without ever holding more than one line's limit of it: a line
// over the limit is reported once, the moment it passes the limit, and the rest is skipped.
import { LINE_MAX_BYTES } from './limits.js'

export type ReadItem = { kind: 'line'; bytes: Buffer } | { kind: 'oversized' }

const NEWLINE = 0x0a

export class LineReader {
  private chunks: Buffer[] = []
  private offset = 0
  private partial: Buffer[] = []
  private partialBytes = 0
  private skipping = false

  constructor(private readonly maxBytes: number = LINE_MAX_BYTES) {}

  push(chunk: Buffer): void {
    if (chunk.length > 0) this.chunks.push(chunk)
  }

  /** True while pushed bytes remain that `take` has not looked at yet. */
  get pending(): boolean {
    return this.chunks.length > 0
  }

  /** The next complete line (without its newline), an oversize report, or undefined for now. */
  take(): ReadItem | undefined {
    while (this.chunks.length > 0) {
      const chunk = this.chunks[0]!
      const newline = chunk.indexOf(NEWLINE, this.offset)
      if (newline === -1) {
        const rest = chunk.length - this.offset
        const tail = this.offset === 0 ? chunk : chunk.subarray(this.offset)
        this.nextChunk()
        if (this.skipping) continue
        if (this.partialBytes + rest > this.maxBytes) {
          this.skipping = true
          this.partial = []
          this.partialBytes = 0
          return { kind: 'oversized' }
        }
        this.partial.push(tail)
        this.partialBytes += rest
        continue
      }
      const segment = chunk.subarray(this.offset, newline)
      this.offset = newline + 1
      if (this.offset >= chunk.length) this.nextChunk()
      if (this.skipping) {
        this.skipping = false
        continue
      }
      const total = this.partialBytes + segment.length
      const parts = this.partial
      this.partial = []
      this.partialBytes = 0
      if (total > this.maxBytes) return { kind: 'oversized' }
      const line = parts.length === 0 ? segment : Buffer.concat([...parts, segment], total)
      return { kind: 'line', bytes: line }
    }
    return undefined
  }

  private nextChunk(): void {
    this.chunks.shift()
    this.offset = 0
  }
}
