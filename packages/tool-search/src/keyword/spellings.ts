// Each distinct spelling of a word in a catalog, to its term id. Most words of a catalog repeat,
// so a spelling is made into a string, lowercased, stemmed and looked up in a Map once; after that
// it is found from its characters where they lie in the text, without making a string.

/** What `termOf` gives for a stop word. */
export const STOP_WORD = -1

export class Spellings {
  /** Open addressing, linear probing: entry + 1, or 0 for an empty slot. */
  private slots: Int32Array
  private chars: Uint16Array
  private charsUsed = 0
  private starts: Int32Array
  private lengths: Int32Array
  private hashes: Int32Array
  private terms: Int32Array
  private count = 0

  /**
   * `resolve` gives a spelling's term id, or `STOP_WORD`; it is called once per spelling. Sized
   * for `expected` spellings up front: growing replaces arrays the optimised code has taken for
   * constants, and a cold build pays for that in deoptimisations.
   */
  constructor(
    private readonly resolve: (spelling: string) => number,
    expected: number,
  ) {
    let entries = 256
    while (entries < expected) entries *= 2
    this.slots = new Int32Array(entries * 2)
    this.chars = new Uint16Array(entries * 8)
    this.starts = new Int32Array(entries)
    this.lengths = new Int32Array(entries)
    this.hashes = new Int32Array(entries)
    this.terms = new Int32Array(entries)
  }

  /** The term id of `text.slice(start, end)`, or `STOP_WORD`; `hash` is the scanner's. */
  termOf(text: string, start: number, end: number, hash: number): number {
    const length = end - start
    const mask = this.slots.length - 1
    let slot = (hash ^ (hash >>> 15)) & mask
    for (;;) {
      const entry = this.slots[slot]! - 1
      if (entry < 0) break
      if (
        this.hashes[entry] === hash &&
        this.lengths[entry] === length &&
        this.spells(entry, text, start, length)
      ) {
        return this.terms[entry]!
      }
      slot = (slot + 1) & mask
    }
    const term = this.resolve(text.slice(start, end))
    this.insert(slot, text, start, length, hash, term)
    return term
  }

  private spells(entry: number, text: string, start: number, length: number): boolean {
    const chars = this.chars
    const at = this.starts[entry]!
    for (let i = 0; i < length; i++) {
      if (chars[at + i] !== text.charCodeAt(start + i)) return false
    }
    return true
  }

  private insert(
    slot: number,
    text: string,
    start: number,
    length: number,
    hash: number,
    term: number,
  ): void {
    const entry = this.count++
    if (entry === this.starts.length) this.growEntries()
    if (this.charsUsed + length > this.chars.length) {
      let size = this.chars.length * 2
      while (size < this.charsUsed + length) size *= 2
      const chars = new Uint16Array(size)
      chars.set(this.chars)
      this.chars = chars
    }
    const at = this.charsUsed
    for (let i = 0; i < length; i++) this.chars[at + i] = text.charCodeAt(start + i)
    this.charsUsed += length
    this.starts[entry] = at
    this.lengths[entry] = length
    this.hashes[entry] = hash
    this.terms[entry] = term
    this.slots[slot] = entry + 1
    // At most half full, so probes stay short.
    if (this.count * 2 > this.slots.length) this.rehash()
  }

  private growEntries(): void {
    const size = this.starts.length * 2
    this.starts = grow(this.starts, size)
    this.lengths = grow(this.lengths, size)
    this.hashes = grow(this.hashes, size)
    this.terms = grow(this.terms, size)
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2)
    const mask = slots.length - 1
    for (let entry = 0; entry < this.count; entry++) {
      const hash = this.hashes[entry]!
      let slot = (hash ^ (hash >>> 15)) & mask
      while (slots[slot] !== 0) slot = (slot + 1) & mask
      slots[slot] = entry + 1
    }
    this.slots = slots
  }
}

function grow(array: Int32Array, size: number) {
  const grown = new Int32Array(size)
  grown.set(array)
  return grown
}
