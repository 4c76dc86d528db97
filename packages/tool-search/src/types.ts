// The package's public contract. The server and the `syntic tool-search` command use only these
// names; everything behind them (tokenizer, BM25, embedders, ranking) may change freely.

/** What the index reads of one tool definition (the `function` object of a chat tool). */
export interface ToolDocument {
  name: string
  description?: string
  /** The tool's JSON Schema; parameter names and descriptions are indexed. */
  parameters?: unknown
}

export type SearchMode = 'keyword' | 'semantic'

export interface SearchHit {
  name: string
  score: number
}

export interface SearchOptions {
  mode: SearchMode
  /** How many hits to return, best first (1 or more). */
  limit: number
  signal?: AbortSignal
}

/**
 * Turns texts into vectors. The embedded default works offline; the OpenAI-compatible adapter
 * calls `/v1/embeddings`. `id` names the model so that cached catalog embeddings are never mixed
 * between embedders.
 */
export interface Embedder {
  readonly id: string
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>
}

/** Raised when the embeddings backend fails; the server maps it to an API error. */
export class EmbedderError extends Error {
  override readonly name = 'EmbedderError'
}
