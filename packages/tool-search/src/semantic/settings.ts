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
  /** Weight of the alignment score added to the fused score (at most 1). */
  alignmentWeight: 0.3,
  /** Word similarities below this are noise: GloVe gives unrelated words cosines near 0.3. */
  alignmentFloor: 0.4,
  /** Query words read for alignment, the rarest kept; tool words per tool. */
  maxQueryWords: 32,
  maxToolWords: 64,
  /** Query expansion into the catalog's own words (query-expansion.ts, word-family.ts). */
  expansion: {
    /** Cosine a catalog term needs to stand in for a query word (unrelated words reach 0.4). */
    floor: 0.5,
    /** Nearest catalog terms added per expanded word, and words expanded per query (rarest). */
    terms: 5,
    maxWords: 4,
    /** An added term weighs `weight * cosine * sif^importancePower`; the query's words weigh 1. */
    weight: 0.5,
    /** Common words ("going", "back") say little: their SIF weight to this power damps them. */
    importancePower: 4,
    /** Words at most this many tools use are expanded too, into terms more tools use. */
    rareFrequency: 2,
    /** Weight of the catalog's other forms of a query word it lacks, and of one it has. */
    family: 0.5,
    familyOfKnown: 0.25,
  },
} as const
