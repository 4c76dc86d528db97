// Semantic mode with the embedded word vectors: BM25F of the query expanded into the catalog's
// own words, fused with the query's SIF cosine, then the best candidates re-ranked by how well
// each tool's words align with the query's.
import type { KeywordIndex } from '../keyword/keyword-index.js'
import type { SearchHit } from '../types.js'
import { clampLimit, fuse, hits } from './fusion.js'
import type { SemanticRanker } from './index.js'
import type { QueryExpansion } from './query-expansion.js'
import { SEMANTIC_SETTINGS } from './settings.js'
import { best } from './vectors.js'
import type { WordVectorSpace } from './word-vector-space.js'

export class WordVectorRanker implements SemanticRanker {
  readonly bytes: number
  // Catalog-sized scratch reused by every search, which runs to its end without awaiting.
  private readonly scores: Float64Array

  constructor(
    private readonly keyword: KeywordIndex,
    private readonly space: WordVectorSpace,
    private readonly expansion: QueryExpansion,
  ) {
    this.scores = new Float64Array(keyword.size)
    this.bytes = space.bytes + expansion.bytes + this.scores.byteLength
  }

  async search(query: string, limit: number, signal?: AbortSignal): Promise<SearchHit[]> {
    signal?.throwIfAborted()
    const wanted = clampLimit(limit, this.keyword.size)
    if (wanted === 0) return []
    const expanded = this.expansion.expand(this.keyword.queryTerms(query))
    const keywordScores = this.keyword.scores(expanded.terms)
    const meaning = this.space.meaning(query)
    const scores = this.scores
    if (meaning.vector) this.space.similarities(meaning.vector, scores)
    else scores.fill(0)
    const share = meaning.vector ? SEMANTIC_SETTINGS.wordVectorWeight : 0
    if (fuse(keywordScores, scores, share, scores, expanded.strength) === 0 && share === 0)
      return []
    const candidates = best(scores, Math.max(wanted, SEMANTIC_SETTINGS.alignmentCandidates))
    for (const t of candidates) {
      scores[t] =
        (scores[t] as number) + SEMANTIC_SETTINGS.alignmentWeight * this.space.alignment(t, meaning)
    }
    candidates.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b)
    return hits(this.keyword, scores, candidates.slice(0, wanted))
  }
}
