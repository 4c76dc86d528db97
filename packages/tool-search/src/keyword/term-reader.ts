// The first pass of a keyword build: every field of every tool as term ids, in one growing
// Int32Array. Words are found in place (`WordScanner`) and known spellings by their characters
// (`Spellings`), so a word seen before costs no string.
import { type Tokenizer, WordScanner } from '../tokenize.js'
import {
  FIELD_COUNT,
  type Field,
  type FieldSink,
  MAX_FIELD_WORDS,
  MAX_TEXT_CHARS,
} from './fields.js'
import { Spellings, STOP_WORD } from './spellings.js'

// What a catalog of real tools has (about 40 words and 1.3 distinct spellings a tool at 10,000
// tools of the development data), rounded up: storage sized from these rarely has to grow.
const WORDS_PER_TOOL = 48
const SPELLINGS_PER_TOOL = 1.5

export class TermReader implements FieldSink {
  readonly termIds = new Map<string, number>()
  readonly termNames: string[] = []
  /** Term ids of every field of every tool read so far, tool by tool, field by field. */
  ids: Int32Array
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
  private readonly scanner = new WordScanner()
  private readonly spellings: Spellings

  constructor(tokenizer: Tokenizer, capacity: number) {
    this.ends = new Int32Array(capacity * FIELD_COUNT)
    this.ids = new Int32Array(Math.max(1024, capacity * WORDS_PER_TOOL))
    this.spellings = new Spellings((spelling) => {
      const term = tokenizer.term(spelling)
      return term === null ? STOP_WORD : this.termId(term)
    }, capacity * SPELLINGS_PER_TOOL)
  }

  add(field: Field, text: unknown): void {
    let length = this.fieldLengths[field]!
    if (typeof text !== 'string' || length >= MAX_FIELD_WORDS) return
    const source = text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text
    const count = this.scanner.scan(source)
    const words = this.scanner.words
    const ids = this.fieldIds[field]!
    for (let w = 0; w < count && length < MAX_FIELD_WORDS; w++) {
      const at = w * 3
      const id = this.spellings.termOf(source, words[at]!, words[at + 1]!, words[at + 2]!)
      if (id !== STOP_WORD) ids[length++] = id
    }
    this.fieldLengths[field] = length
  }

  private termId(term: string): number {
    let id = this.termIds.get(term)
    if (id === undefined) {
      id = this.termNames.length
      this.termIds.set(term, id)
      this.termNames.push(term)
    }
    return id
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
