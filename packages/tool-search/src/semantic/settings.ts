// One configuration for every catalog, chosen on the development data with
// packages/tool-search/scripts/tune-semantic.mjs (figures in docs/tool-search.md).

export const SEMANTIC_SETTINGS = {
  /** Share of the meaning score in the fused score; the rest is keyword's BM25F over its max. */
  wordVectorWeight: 0.15,
  /** The same for an external embedder, whose vectors deserve more trust than averaged words. */
  externalWeight: 0.5,
  /** How much a tool's name, description and parameter names count in its word-vector average. */
  fieldWeights: { name: 2, description: 1, parameterNames: 0.5 },
  /** Fused candidates re-ranked by word alignment. */
  alignmentCandidates: 30,
  /** Weight of the alignment score added to the fused score (which is scaled to at most 1). */
  alignmentWeight: 0.3,
  /** Word similarities below this are noise: GloVe gives unrelated words cosines near 0.3. */
  alignmentFloor: 0.4,
  /** Query words read for alignment, the rarest kept; tool words per tool. */
  maxQueryWords: 32,
  maxToolWords: 64,
} as const
