// How keyword and meaning scores become one: scores are fused, not ranks.
import type { KeywordIndex } from '../keyword/keyword-index.js'
import type { SearchHit } from '../types.js'

/**
 * `(1 - share)` of BM25F over its maximum (times `strength`, how far keyword scores are evidence)
 * plus `share` of the meaning score, into `into` (which may be `meaning`). Returns the BM25F
 * maximum: 0 when no tool shares a word with the query.
 */
export function fuse(
  keywordScores: Float64Array,
  meaning: Float64Array,
  share: number,
  into: Float64Array,
  strength = 1,
): number {
  let max = 0
  for (let t = 0; t < keywordScores.length; t++) {
    const score = keywordScores[t] as number
    if (score > max) max = score
  }
  const keywordShare = max > 0 ? (strength * (1 - share)) / max : 0
  for (let t = 0; t < into.length; t++) {
    into[t] = (keywordScores[t] as number) * keywordShare + share * (meaning[t] as number)
  }
  return max
}

export function hits(
  keyword: KeywordIndex,
  scores: Float64Array,
  order: readonly number[],
): SearchHit[] {
  return order.map((t) => ({ name: keyword.name(t), score: scores[t] as number }))
}

export function clampLimit(limit: number, size: number): number {
  return Math.max(0, Math.min(Math.floor(limit), size))
}
