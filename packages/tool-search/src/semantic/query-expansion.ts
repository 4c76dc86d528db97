// Targeted query expansion: a query word the catalog never uses ("reimburse") stands for the
// catalog's own words nearest to it in word-vector space ("refund", "reimbursement"), weighted by
// how close they are and how much the word says. Words the catalog already has are left alone:
// BM25F matches them, and expanding them only adds noise (measured: docs/tool-search.md).
import { sifWeight } from '../embedders/default.js'
import type { WordVectors } from '../embedders/word-vectors.js'
import type { KeywordIndex } from '../keyword/keyword-index.js'
import { SEMANTIC_SETTINGS } from './settings.js'
import { matrixTimesVector, normalise } from './vectors.js'
import { WordFamilies } from './word-family.js'

export interface ExpandedQuery {
  terms: Map<string, number>
  /**
   * How far keyword scores are evidence: 1 when a word of the query itself is in the catalog,
   * else the heaviest added term's weight, so that matches on stand-ins alone are not read as a
   * full match once scores are divided by the best.
   */
  strength: number
}

export class QueryExpansion {
  readonly bytes: number
  private readonly dims: number
  /** Unit vectors of the catalog terms the table knows, row-major; `terms[r]` names row r. */
  private readonly vectors: Float32Array
  private readonly terms: readonly string[]
  private readonly similarities: Float64Array
  private readonly word: Float32Array
  private readonly families: WordFamilies

  constructor(
    private readonly keyword: KeywordIndex,
    private readonly table: WordVectors,
    signal?: AbortSignal,
  ) {
    const dims = table.dims
    this.dims = dims
    const rows: number[] = []
    const terms: string[] = []
    let seen = 0
    for (const term of keyword.terms().keys()) {
      if (++seen % 4096 === 0) signal?.throwIfAborted()
      if (!expandable(term)) continue
      const row = table.lookup(term)
      if (row < 0) continue
      rows.push(row)
      terms.push(term)
    }
    this.terms = terms
    this.vectors = new Float32Array(rows.length * dims)
    rows.forEach((row, r) => {
      table.addTo(this.vectors, row, 1, r * dims)
      normalise(this.vectors, r * dims, dims)
    })
    this.similarities = new Float64Array(rows.length)
    this.word = new Float32Array(dims)
    this.families = new WordFamilies(keyword.terms().keys())
    let strings = 0
    for (const term of terms) strings += 40 + term.length * 2
    this.bytes = this.vectors.byteLength + this.similarities.byteLength + strings
  }

  /**
   * The query's terms plus, for each word, the catalog's other forms of it, and for each word the
   * catalog lacks or barely uses (the rarest few), the catalog terms nearest to it that the
   * catalog uses more. An added term keeps the larger weight if two words reach it.
   */
  expand(terms: ReadonlyMap<string, number>): ExpandedQuery {
    const settings = SEMANTIC_SETTINGS.expansion
    const out = new Map(terms)
    const add = (term: string, weight: number) => {
      if (weight > (out.get(term) ?? 0)) out.set(term, weight)
    }
    const known = this.keyword.terms()
    let matched = false
    const rare: { row: number; frequency: number }[] = []
    for (const term of terms.keys()) {
      if (!expandable(term)) continue
      const frequency = known.get(term) ?? 0
      if (frequency > 0) matched = true
      const family = frequency === 0 ? settings.family : settings.familyOfKnown
      for (const form of this.families.of(term)) add(form, family)
      if (frequency > settings.rareFrequency) continue
      const row = this.table.lookup(term)
      if (row >= 0) rare.push({ row, frequency })
    }
    rare.sort((a, b) => b.row - a.row)
    for (const { row, frequency } of rare.slice(0, settings.maxWords)) {
      const importance = settings.weight * sifWeight(this.table, row) ** settings.importancePower
      for (const { term, similarity } of this.nearest(row)) {
        const used = known.get(term) ?? 0
        if (used <= frequency) continue
        add(term, importance * similarity * (1 - frequency / used))
      }
    }
    let strength = 0
    for (const [term, weight] of out) {
      if (matched || terms.has(term)) continue
      if (weight > strength) strength = weight
    }
    return { terms: out, strength: matched ? 1 : strength }
  }

  /** Catalog terms closest to table row `row` with a cosine above the floor, closest first. */
  nearest(row: number): { term: string; similarity: number }[] {
    const { floor, terms: perWord } = SEMANTIC_SETTINGS.expansion
    const { dims, word, similarities } = this
    word.fill(0)
    this.table.addTo(word, row, 1)
    if (!normalise(word, 0, dims) || similarities.length === 0) return []
    matrixTimesVector(this.vectors, dims, word, 0, similarities)
    const top: number[] = []
    for (let r = 0; r < similarities.length; r++) {
      const similarity = similarities[r] as number
      if (similarity <= floor) continue
      const last = top[perWord - 1]
      if (last !== undefined && similarity <= (similarities[last] as number)) continue
      let at = top.length
      while (at > 0 && similarity > (similarities[top[at - 1] as number] as number)) at--
      top.splice(at, 0, r)
      if (top.length > perWord) top.pop()
    }
    return top.map((r) => ({
      term: this.terms[r] as string,
      similarity: similarities[r] as number,
    }))
  }
}

/** Words worth a meaning: numbers, codes ("v2", "x509") and single letters are not. */
function expandable(term: string): boolean {
  return term.length > 2 && !/\d/.test(term)
}
