// Semantic mode: keyword's BM25F fused with meaning. Scores are fused, not ranks: BM25F over its
// maximum plus a share of the query's cosine with each tool. With the embedded word vectors the
// best fused candidates are then re-ranked by how well each tool's words align with the query's.
import { WordVectorEmbedder } from '../embedders/default.js'
import type { KeywordIndex } from '../keyword/keyword-index.js'
import { type Embedder, EmbedderError, type SearchHit, type ToolDocument } from '../types.js'
import { clampLimit, fuse, hits } from './fusion.js'
import { QueryExpansion } from './query-expansion.js'
import { SEMANTIC_SETTINGS } from './settings.js'
import { toolText } from './tool-words.js'
import { best, matrixTimesVector, normalise } from './vectors.js'
import { WordVectorRanker } from './word-vector-ranker.js'
import { WordVectorSpace } from './word-vector-space.js'

export interface SemanticRanker {
  /** Rough bytes held beyond the keyword index, for the catalog cache's memory bound. */
  readonly bytes: number
  search(query: string, limit: number, signal?: AbortSignal): Promise<SearchHit[]>
}

export async function buildSemanticRanker(
  docs: readonly ToolDocument[],
  keyword: KeywordIndex,
  embedder: Embedder,
  signal?: AbortSignal,
): Promise<SemanticRanker> {
  signal?.throwIfAborted()
  if (embedder instanceof WordVectorEmbedder) {
    const table = embedder.vectors()
    const space = new WordVectorSpace(table, docs, signal)
    return new WordVectorRanker(keyword, space, new QueryExpansion(keyword, table, signal))
  }
  const vectors = await embedder.embed(docs.map(toolText), signal)
  return new EmbeddingRanker(keyword, embedder, unitRows(vectors, docs.length))
}

class EmbeddingRanker implements SemanticRanker {
  readonly bytes: number

  constructor(
    private readonly keyword: KeywordIndex,
    private readonly embedder: Embedder,
    private readonly vectors: UnitRows,
  ) {
    this.bytes = vectors.data.byteLength
  }

  async search(query: string, limit: number, signal?: AbortSignal): Promise<SearchHit[]> {
    signal?.throwIfAborted()
    const wanted = clampLimit(limit, this.keyword.size)
    if (wanted === 0 || query.trim().length === 0) return []
    const [embedded] = await this.embedder.embed([query], signal)
    const { data, dims } = this.vectors
    if (embedded?.length !== dims) {
      throw new EmbedderError(
        `the embedder returned a query vector of ${embedded?.length ?? 0} dimensions, not ${dims}`,
      )
    }
    const unit = Float32Array.from(embedded)
    const scores = new Float64Array(this.keyword.size)
    if (normalise(unit, 0, dims)) matrixTimesVector(data, dims, unit, 0, scores)
    fuse(
      this.keyword.scores(this.keyword.queryTerms(query)),
      scores,
      SEMANTIC_SETTINGS.externalWeight,
      scores,
    )
    return hits(this.keyword, scores, best(scores, wanted))
  }
}

interface UnitRows {
  data: Float32Array
  dims: number
}

function unitRows(vectors: readonly Float32Array[], count: number): UnitRows {
  if (vectors.length !== count) {
    throw new EmbedderError(`the embedder returned ${vectors.length} vectors for ${count} tools`)
  }
  const dims = vectors[0]?.length ?? 0
  const data = new Float32Array(count * dims)
  vectors.forEach((vector, t) => {
    if (vector.length !== dims) {
      throw new EmbedderError(
        `the embedder returned vectors of ${vector.length} and ${dims} dimensions`,
      )
    }
    data.set(vector, t * dims)
    normalise(data, t * dims, dims)
  })
  return { data, dims }
}
