// Bounded capture of a command's output. A command may print gigabytes; we only ever show the
// model the beginning and the end, so we keep a fixed-size head and a rolling tail of raw bytes
// and merely count what falls in between. Decoding happens once, at the end, so a multi-byte
// UTF-8 character split across pipe reads is never mangled in the kept parts.

/** UTF-16 code units a chunk of UTF-8 decodes to (4-byte sequences become surrogate pairs). */
function utf16Length(bytes: Uint8Array): number {
  let units = 0
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if ((b & 0xc0) !== 0x80) units += b >= 0xf0 ? 2 : 1
  }
  return units
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

export class OutputCapture {
  private readonly headChars: number
  private readonly tailChars: number
  // A UTF-16 code unit never needs more than 3 UTF-8 bytes; 4 leaves room for a split sequence.
  private readonly headCapacity: number
  private readonly tailCapacity: number
  private readonly head: Buffer[] = []
  private headBytes = 0
  private tail: Buffer[] = []
  private tailBytes = 0
  private droppedBytes = 0
  // Counted over the whole stream so the "dropped" figure is exact without keeping the middle.
  private totalUnits = 0

  constructor(readonly maxChars: number) {
    this.headChars = Math.ceil(maxChars / 2)
    this.tailChars = maxChars - this.headChars
    this.headCapacity = this.headChars * 4
    this.tailCapacity = this.tailChars * 4
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return
    this.totalUnits += utf16Length(chunk)
    let rest = chunk
    if (this.headBytes < this.headCapacity) {
      const take = Math.min(this.headCapacity - this.headBytes, rest.length)
      // Copy: a subarray would pin the whole (possibly 64 KiB) read buffer in memory.
      this.head.push(Buffer.from(rest.subarray(0, take)))
      this.headBytes += take
      rest = rest.subarray(take)
      if (rest.length === 0) return
    }
    this.tail.push(Buffer.from(rest))
    this.tailBytes += rest.length
    this.trimTail()
  }

  private trimTail(): void {
    while (this.tailBytes > this.tailCapacity) {
      const first = this.tail[0]!
      const excess = this.tailBytes - this.tailCapacity
      if (excess >= first.length) {
        this.tail.shift()
        this.tailBytes -= first.length
        this.droppedBytes += first.length
      } else {
        this.tail[0] = Buffer.from(first.subarray(excess))
        this.tailBytes -= excess
        this.droppedBytes += excess
      }
    }
  }

  /** The text to show: everything if it fits, else head, a marker line, and tail. */
  text(): string {
    if (this.droppedBytes === 0) {
      const whole = Buffer.concat([...this.head, ...this.tail]).toString('utf8')
      if (whole.length <= this.maxChars) return whole
      return this.join(whole, whole, whole.length, true)
    }
    const head = Buffer.concat(this.head).toString('utf8')
    const tail = Buffer.concat(this.tail).toString('utf8')
    return this.join(head, tail, this.totalUnits, false)
  }

  /** `overlapping`: head and tail are the same text, so the tail must start after the head. */
  private join(head: string, tail: string, total: number, overlapping: boolean): string {
    let headEnd = Math.min(this.headChars, head.length)
    if (headEnd > 0 && isHighSurrogate(head.charCodeAt(headEnd - 1))) headEnd--
    let tailStart = Math.max(0, tail.length - this.tailChars)
    if (overlapping) tailStart = Math.max(tailStart, headEnd)
    if (tailStart < tail.length && isLowSurrogate(tail.charCodeAt(tailStart))) tailStart++
    const kept = head.slice(0, headEnd)
    const end = tail.slice(tailStart)
    const dropped = Math.max(0, total - kept.length - end.length)
    const before = kept === '' || kept.endsWith('\n') ? kept : `${kept}\n`
    return `${before}[... ${dropped} characters dropped ...]\n${end}`
  }
}
