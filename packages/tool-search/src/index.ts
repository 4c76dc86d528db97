export {
  type Catalog,
  type CatalogOptions,
  DEFAULT_CHECK_INTERVAL_MS,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_CATALOGS,
  ToolSearch,
  type ToolSearchOptions,
  type ToolSearchStats,
} from './catalog-cache.js'
export { CatalogFileError, parseCatalog } from './catalog-file.js'
export { catalogFingerprint, catalogKey } from './catalog-key.js'
export {
  DEFAULT_WORD_VECTORS_PATH,
  defaultEmbedder,
  embedderFromEnv,
  OpenAICompatibleEmbedder,
  type OpenAICompatibleEmbedderOptions,
  WordVectorEmbedder,
} from './embedders/index.js'
export { ndcgAt, type QualityReport, recallAt, summarize } from './eval/metrics.js'
export { type JudgedQuery, parseQueries, QueryFileError } from './eval/queries.js'
export { FIELDS, type FieldName } from './keyword/fields.js'
export { KeywordIndex } from './keyword/keyword-index.js'
export {
  DEFAULT_KEYWORD_SETTINGS,
  type FieldSettings,
  type KeywordSettings,
} from './keyword/settings.js'
export {
  createTokenizer,
  STOP_WORDS,
  type Stemming,
  splitWords,
  stemLight,
  stemPlural,
  type Tokenizer,
  type TokenizerOptions,
  tokenize,
  WordScanner,
} from './tokenize.js'
export * from './types.js'
