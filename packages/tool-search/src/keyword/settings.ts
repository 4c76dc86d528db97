import { type Tokenizer, tokenize } from '../tokenize.js'
import type { FieldName } from './fields.js'

export interface FieldSettings {
  /** How much one occurrence in this field counts against one in another. */
  weight: number
  /** Length normalisation, 0 (none) to 1 (full), as BM25's b. */
  b: number
}

export interface KeywordSettings {
  /** Term-frequency saturation, as BM25's k1. */
  k1: number
  fields: Readonly<Record<FieldName, FieldSettings>>
  tokenizer: Tokenizer
}

/**
 * Chosen by a grid search on the development data (packages/tool-search/scripts/tune-keyword.mjs;
 * the figures are in docs/tool-search.md). Names weigh most since they are what a tool is; the
 * description and parameter names follow; deep schema text is weak evidence.
 */
export const DEFAULT_KEYWORD_SETTINGS: KeywordSettings = {
  k1: 1.2,
  fields: {
    name: { weight: 2, b: 0.75 },
    description: { weight: 2, b: 0.5 },
    parameterNames: { weight: 0.5, b: 0.75 },
    parameterDescriptions: { weight: 0.5, b: 0.75 },
    nested: { weight: 0.25, b: 0.75 },
  },
  tokenizer: tokenize,
}
