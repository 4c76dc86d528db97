// The first pass of a keyword build: every field of every tool as term ids, in one growing
// Int32Array, with nothing allocated per tool or field beyond the tokenizer's own words.
import {
  FIELD_COUNT,
  type Field,
  type FieldSink,
  MAX_FIELD_WORDS,
  MAX_TEXT_CHARS,
} from './fields.js'

type Tokenizer = (text: string) => string[]

export class TermReader implements FieldSink {
  readonly termIds = new Map<string, number>()
  readonly termNames: string[] = []
  /** Term ids of every field of every tool read so far, tool by tool, field by field. */
  ids = new Int32Array(1024)
  /** Where the term ids of field f of tool d end in `ids`: `ends[d * FIELD_COUNT + f]`. */
  readonly ends: Int32Array
  /** Words per field over all tools. */
  readonly lengthSums = new Float64Array(FIELD_COUNT)
  length = 0
  // The current tool's term ids per field: fields arrive interleaved (a parameter's name, then
  // its description), and the index wants them field by field.
  private readonly fieldIds = Array.from(
    { length: FIELD_COUNT },
    () => new Int32Array(MAX_FIELD_WORDS),
  )
  private readonly fieldLengths = new Int32Array(FIELD_COUNT)
  private tools = 0

  constructor(
    private readonly tokenizer: Tokenizer,
    capacity: number,
  ) {
    this.ends = new Int32Array(capacity * FIELD_COUNT)
  }

  add(field: Field, text: unknown): void {
    let length = this.fieldLengths[field]!
    if (typeof text !== 'string' || length >= MAX_FIELD_WORDS) return
    const words = this.tokenizer(
      text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text,
    )
    const ids = this.fieldIds[field]!
    const room = Math.min(words.length, MAX_FIELD_WORDS - length)
    for (let w = 0; w < room; w++) {
      const word = words[w]!
      let id = this.termIds.get(word)
      if (id === undefined) {
        id = this.termNames.length
        this.termIds.set(word, id)
        this.termNames.push(word)
      }
      ids[length++] = id
    }
    this.fieldLengths[field] = length
  }

  /** Ends the current tool: its term ids join the others, field by field. */
  endTool(): void {
    const base = this.tools * FIELD_COUNT
    for (let f = 0; f < FIELD_COUNT; f++) {
      const length = this.fieldLengths[f]!
      this.reserve(length)
      const from = this.fieldIds[f]!
      const to = this.ids
      let at = this.length
      for (let w = 0; w < length; w++) to[at++] = from[w]!
      this.length = at
      this.lengthSums[f]! += length
      this.ends[base + f] = this.length
      this.fieldLengths[f] = 0
    }
    this.tools++
  }

  private reserve(more: number): void {
    if (this.length + more <= this.ids.length) return
    let size = this.ids.length * 2
    while (size < this.length + more) size *= 2
    const grown = new Int32Array(size)
    grown.set(this.ids.subarray(0, this.length))
    this.ids = grown
  }
}
