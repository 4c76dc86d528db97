// A catalog read through the word-vector table: one SIF vector per tool (common component
// removed) for a cheap whole-catalog cosine, and each tool's distinct words as unit vectors for
// the finer word alignment of the best candidates.
import { sifWeight } from '../embedders/default.js'
import type { WordVectors } from '../embedders/word-vectors.js'
import type { ToolDocument } from '../types.js'
import { SEMANTIC_SETTINGS } from './settings.js'
import { contentWords, toolWords } from './tool-words.js'
import { commonComponent, matrixTimesVector, normalise, removeComponent } from './vectors.js'

export interface QueryMeaning {
  /** Unit vector of the whole query, or undefined when no word of it is known. */
  vector: Float32Array | undefined
  /** The query's known words (unit vectors, row-major) and their weights, rarest first. */
  words: Float32Array
  weights: Float64Array
  /** Scratch for alignment, one slot per query word. */
  closest: Float64Array
  similarities: Float64Array
}

export class WordVectorSpace {
  readonly dims: number
  readonly bytes: number
  private readonly toolVectors: Float32Array
  private readonly common: Float32Array
  /** Unit vectors of the catalog's distinct words; tool t's words are ids toolWordIds[starts[t]..starts[t+1]). */
  private readonly wordVectors: Float32Array
  private readonly starts: Int32Array
  private readonly toolWordIds: Int32Array

  constructor(
    private readonly table: WordVectors,
    docs: readonly ToolDocument[],
    signal?: AbortSignal,
  ) {
    const dims = table.dims
    this.dims = dims
    const count = docs.length
    this.toolVectors = new Float32Array(count * dims)
    const localIds = new Map<number, number>()
    const rows: number[] = []
    const ids: number[] = []
    this.starts = new Int32Array(count + 1)
    const scratch = new Float32Array(dims)
    // Tools repeat their words: one binary search per distinct word.
    const rowOf = new Map<string, number>()
    for (let t = 0; t < count; t++) {
      if (t % 1024 === 0) signal?.throwIfAborted()
      scratch.fill(0)
      const seen = new Set<number>()
      for (const { word, weight } of toolWords(docs[t] as ToolDocument)) {
        let row = rowOf.get(word)
        if (row === undefined) {
          row = table.lookup(word)
          rowOf.set(word, row)
        }
        if (row < 0) continue
        table.addTo(scratch, row, weight * sifWeight(table, row))
        if (seen.size >= SEMANTIC_SETTINGS.maxToolWords || seen.has(row)) continue
        seen.add(row)
        let id = localIds.get(row)
        if (id === undefined) {
          id = rows.length
          localIds.set(row, id)
          rows.push(row)
        }
        ids.push(id)
      }
      this.toolVectors.set(scratch, t * dims)
      this.starts[t + 1] = ids.length
    }
    this.toolWordIds = Int32Array.from(ids)
    this.wordVectors = new Float32Array(rows.length * dims)
    rows.forEach((row, id) => {
      table.addTo(this.wordVectors, row, 1, id * dims)
      normalise(this.wordVectors, id * dims, dims)
    })
    this.common = commonComponent(this.toolVectors, count, dims)
    for (let t = 0; t < count; t++) {
      removeComponent(this.toolVectors, t * dims, this.common, dims)
      normalise(this.toolVectors, t * dims, dims)
    }
    this.bytes =
      this.toolVectors.byteLength +
      this.wordVectors.byteLength +
      this.starts.byteLength +
      this.toolWordIds.byteLength +
      localIds.size * 40
  }

  meaning(query: string): QueryMeaning {
    const { table, dims } = this
    const vector = new Float32Array(dims)
    const known = new Map<number, number>()
    for (const word of contentWords(query)) {
      const row = table.lookup(word)
      if (row < 0) continue
      const weight = sifWeight(table, row)
      table.addTo(vector, row, weight)
      known.set(row, weight)
    }
    const rows = [...known.keys()].sort((a, b) => b - a).slice(0, SEMANTIC_SETTINGS.maxQueryWords)
    const words = new Float32Array(rows.length * dims)
    const weights = new Float64Array(rows.length)
    rows.forEach((row, i) => {
      table.addTo(words, row, 1, i * dims)
      normalise(words, i * dims, dims)
      weights[i] = known.get(row) as number
    })
    const scratch = {
      closest: new Float64Array(rows.length),
      similarities: new Float64Array(rows.length),
    }
    if (known.size === 0) return { vector: undefined, words, weights, ...scratch }
    removeComponent(vector, 0, this.common, dims)
    return { vector: normalise(vector, 0, dims) ? vector : undefined, words, weights, ...scratch }
  }

  /** Cosine of the query with every tool. */
  similarities(query: Float32Array, into: Float64Array): void {
    matrixTimesVector(this.toolVectors, this.dims, query, 0, into)
  }

  /**
   * How well the tool's words cover the query's: for each query word its closest tool word,
   * similarity above the floor rescaled to 0..1, weighted by the query word's SIF weight.
   */
  alignment(tool: number, meaning: QueryMeaning): number {
    const { dims } = this
    const { words, weights, closest, similarities } = meaning
    const floor = SEMANTIC_SETTINGS.alignmentFloor
    const end = this.starts[tool + 1] as number
    closest.fill(0)
    for (let i = this.starts[tool] as number; i < end; i++) {
      const offset = (this.toolWordIds[i] as number) * dims
      matrixTimesVector(words, dims, this.wordVectors, offset, similarities)
      for (let q = 0; q < similarities.length; q++) {
        if ((similarities[q] as number) > (closest[q] as number))
          closest[q] = similarities[q] as number
      }
    }
    let total = 0
    let covered = 0
    for (let q = 0; q < weights.length; q++) {
      const weight = weights[q] as number
      const best = closest[q] as number
      total += weight
      if (best > floor) covered += (weight * (best - floor)) / (1 - floor)
    }
    return total > 0 ? covered / total : 0
  }
}
