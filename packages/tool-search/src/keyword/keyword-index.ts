// BM25F over the fields of each tool. Each field's term frequency is normalised by that field's
// length and weighted, the sum saturates once (k1), and idf comes from document frequency. All of
// that is fixed per (term, tool), so it is computed at build time: a posting holds the tool and
// its finished score, and a query only adds postings.
import type { Tokenizer } from '../tokenize.js'
import type { SearchHit, ToolDocument } from '../types.js'
import { FIELD_COUNT, FIELDS, MAX_FIELD_WORDS, readFields } from './fields.js'
import { nameCompounds } from './name-compounds.js'
import { DEFAULT_KEYWORD_SETTINGS, type KeywordSettings } from './settings.js'
import { TermReader } from './term-reader.js'
import { topHits } from './top-hits.js'

/**
 * Words that frame a request ("can you help me", "I want to know") rather than say what it needs.
 * Dropped from queries only: in a tool's own text they may carry meaning.
 */
const REQUEST_FILLER: ReadonlySet<string> = new Set([
  'hello',
  'help',
  'hi',
  'just',
  'know',
  'let',
  'like',
  'need',
  'tell',
  'thank',
  'thanks',
  'want',
])

export class KeywordIndex {
  readonly size: number
  /** Rough bytes this index holds, for the catalog cache's memory bound. */
  readonly bytes: number
  private readonly names: readonly string[]
  private readonly termIds: ReadonlyMap<string, number>
  private readonly termNames: readonly string[]
  /** Postings of term t are at offsets[t] .. offsets[t + 1] in `docs` and `impacts`. */
  private readonly offsets: Int32Array
  private readonly docs: Int32Array
  private readonly impacts: Float32Array
  private readonly tokenizer: (text: string) => string[]
  private readonly scratch: Float64Array
  private readonly touched: Int32Array
  private termFrequencies: Map<string, number> | undefined
  private compounds: Map<string, readonly string[]> | undefined

  private constructor(parts: {
    names: string[]
    termIds: Map<string, number>
    termNames: string[]
    offsets: Int32Array
    docs: Int32Array
    impacts: Float32Array
    tokenizer: (text: string) => string[]
  }) {
    this.names = parts.names
    this.termIds = parts.termIds
    this.termNames = parts.termNames
    this.offsets = parts.offsets
    this.docs = parts.docs
    this.impacts = parts.impacts
    this.tokenizer = parts.tokenizer
    this.size = parts.names.length
    this.scratch = new Float64Array(this.size)
    this.touched = new Int32Array(this.size)
    let strings = 0
    for (const name of parts.names) strings += 40 + name.length * 2
    for (const term of parts.termNames) strings += 100 + term.length * 2
    this.bytes =
      strings +
      this.offsets.byteLength +
      this.docs.byteLength +
      this.impacts.byteLength +
      this.scratch.byteLength +
      this.touched.byteLength
  }

  static build(
    docs: readonly ToolDocument[],
    settings: KeywordSettings = DEFAULT_KEYWORD_SETTINGS,
  ): KeywordIndex {
    // Each pass is its own function, so a cold build optimises each loop on its own feedback.
    const names = docs.map((doc) => (typeof doc.name === 'string' ? doc.name : ''))
    const reader = readTerms(docs, settings.tokenizer)
    return new KeywordIndex({
      names,
      termIds: reader.termIds,
      termNames: reader.termNames,
      ...scorePostings(reader, docs.length, settings),
      tokenizer: settings.tokenizer,
    })
  }

  /** BM25F score of every document for weighted query terms (term -> weight, 1 for the query's own words). */
  scores(terms: ReadonlyMap<string, number>): Float64Array {
    const out = new Float64Array(this.size)
    for (const [term, weight] of terms) {
      const id = this.termIds.get(term)
      if (id === undefined || !(weight > 0)) continue
      const end = this.offsets[id + 1]!
      for (let p = this.offsets[id]!; p < end; p++) out[this.docs[p]!]! += weight * this.impacts[p]!
    }
    return out
  }

  search(query: string, limit: number): SearchHit[] {
    return this.searchTerms(this.queryTerms(query), limit)
  }

  /**
   * The query's distinct words, each weighing 1: a word repeated in a request ("convert 5 USD to
   * EUR, then convert...") is not more important for it (measured: counting repeats ranks worse).
   * A word no tool has, written as one where a tool name writes two ("javascript" for
   * `runJavaScript`), stands for those two.
   */
  queryTerms(query: string): Map<string, number> {
    const terms = new Map<string, number>()
    for (const word of this.tokenizer(query)) {
      if (REQUEST_FILLER.has(word)) continue
      terms.set(word, 1)
      if (this.termIds.has(word)) continue
      // Built on the first query that needs it: most catalogs are searched with known words.
      this.compounds ??= nameCompounds(this.names, this.tokenizer)
      for (const part of this.compounds.get(word) ?? []) terms.set(part, 1)
    }
    return terms
  }

  /** Like `scores`, but returns only the best `limit` hits and allocates nothing of catalog size. */
  searchTerms(terms: ReadonlyMap<string, number>, limit: number): SearchHit[] {
    const scratch = this.scratch
    const touched = this.touched
    let touchedCount = 0
    for (const [term, weight] of terms) {
      const id = this.termIds.get(term)
      if (id === undefined || !(weight > 0)) continue
      const end = this.offsets[id + 1]!
      for (let p = this.offsets[id]!; p < end; p++) {
        const doc = this.docs[p]!
        if (scratch[doc] === 0) touched[touchedCount++] = doc
        scratch[doc]! += weight * this.impacts[p]!
      }
    }
    const best = topHits(scratch, touched, touchedCount, limit)
    const hits = best.map((doc) => ({ name: this.names[doc]!, score: scratch[doc]! }))
    for (let i = 0; i < touchedCount; i++) scratch[touched[i]!] = 0
    return hits
  }

  /** Terms that occur in the catalog, with their document frequency. */
  terms(): ReadonlyMap<string, number> {
    if (this.termFrequencies === undefined) {
      const frequencies = new Map<string, number>()
      for (let t = 0; t < this.termNames.length; t++) {
        frequencies.set(this.termNames[t]!, this.offsets[t + 1]! - this.offsets[t]!)
      }
      this.termFrequencies = frequencies
    }
    return this.termFrequencies
  }

  name(doc: number): string {
    const name = this.names[doc]
    if (name === undefined) throw new RangeError(`no document ${doc} in a catalog of ${this.size}`)
    return name
  }
}

/** Pass 1: every field's words as term ids, and the field lengths. */
function readTerms(docs: readonly ToolDocument[], tokenizer: Tokenizer): TermReader {
  const reader = new TermReader(tokenizer, docs.length)
  for (const doc of docs) {
    readFields(doc, reader)
    reader.endTool()
  }
  return reader
}

/** Postings of every term, grouped by term, each holding its finished BM25F score. */
interface Postings {
  /** Postings of term t are at offsets[t] .. offsets[t + 1]. */
  offsets: Int32Array
  docs: Int32Array
  impacts: Float32Array
}

/**
 * What one word in field f of tool d adds to its term's frequency there: the field's weight over
 * its length normalisation, at `d * FIELD_COUNT + f`; 0 for an empty field or one weighted 0,
 * which is not indexed at all (rather than indexed with zero scores).
 */
function fieldFactors(reader: TermReader, count: number, settings: KeywordSettings): Float64Array {
  const weights = FIELDS.map((f) => settings.fields[f].weight)
  const bs = FIELDS.map((f) => settings.fields[f].b)
  const averages = Array.from(reader.lengthSums, (sum) => (count > 0 ? sum / count : 0))
  const ends = reader.ends
  const factors = new Float64Array(count * FIELD_COUNT)
  let from = 0
  for (let at = 0; at < count * FIELD_COUNT; at++) {
    const f = at % FIELD_COUNT
    const length = ends[at]! - from
    from = ends[at]!
    if (length === 0) continue
    const average = averages[f]! > 0 ? averages[f]! : 1
    const add = weights[f]! / (1 - bs[f]! + (bs[f]! * length) / average)
    if (add > 0) factors[at] = add
  }
  return factors
}

/** How many tools each term is indexed for. */
function documentFrequencies(reader: TermReader, factors: Float64Array): Int32Array {
  const { ids, ends } = reader
  const termCount = reader.termNames.length
  const frequencies = new Int32Array(termCount)
  // The last tool that counted each term, so a tool counts a term once.
  const counted = new Int32Array(termCount).fill(-1)
  let from = 0
  for (let at = 0; at < factors.length; at++) {
    const to = ends[at]!
    if (factors[at]! > 0) {
      const d = (at / FIELD_COUNT) | 0
      for (let w = from; w < to; w++) {
        const id = ids[w]!
        if (counted[id] !== d) {
          counted[id] = d
          frequencies[id]!++
        }
      }
    }
    from = to
  }
  return frequencies
}

/**
 * Passes 2 and 3: the tools each term is in are counted first, which places every term's
 * postings; then each tool's weighted term frequencies are summed and written in place as
 * finished scores, tool by tool, so each term's postings come in catalog order.
 */
function scorePostings(reader: TermReader, count: number, settings: KeywordSettings): Postings {
  const factors = fieldFactors(reader, count, settings)
  const documentFrequency = documentFrequencies(reader, factors)
  const termCount = documentFrequency.length
  const offsets = new Int32Array(termCount + 1)
  const idfs = new Float64Array(termCount)
  for (let t = 0; t < termCount; t++) {
    const df = documentFrequency[t]!
    offsets[t + 1] = offsets[t]! + df
    idfs[t] = Math.log(1 + (count - df + 0.5) / (df + 0.5))
  }
  const total = offsets[termCount]!
  const docs = new Int32Array(total)
  const impacts = new Float32Array(total)
  const fill = offsets.slice(0, termCount)
  const { ids, ends } = reader
  const k1 = settings.k1
  const frequency = new Float64Array(termCount)
  const seen = new Int32Array(Math.min(termCount, FIELD_COUNT * MAX_FIELD_WORDS))
  let from = 0
  for (let d = 0; d < count; d++) {
    let seenCount = 0
    for (let f = 0; f < FIELD_COUNT; f++) {
      const at = d * FIELD_COUNT + f
      const to = ends[at]!
      const add = factors[at]!
      if (add > 0) {
        for (let w = from; w < to; w++) {
          const id = ids[w]!
          if (frequency[id] === 0) seen[seenCount++] = id
          frequency[id]! += add
        }
      }
      from = to
    }
    for (let s = 0; s < seenCount; s++) {
      const t = seen[s]!
      const tf = frequency[t]!
      const at = fill[t]!++
      docs[at] = d
      impacts[at] = (idfs[t]! * tf * (k1 + 1)) / (tf + k1)
      frequency[t] = 0
    }
  }
  return { offsets, docs, impacts }
}
