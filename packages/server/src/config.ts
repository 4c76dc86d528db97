import type { UpstreamFormat } from './upstream/port.js'

export interface UpstreamConfig {
  /** Base URL. OpenAI format: includes `/v1` (`http://127.0.0.1:8000/v1`); Anthropic: without. */
  url: string
  apiKey?: string
  format: UpstreamFormat
  /** Longest wait for the upstream's response headers (or first byte of a stream). */
  timeoutMs: number
  connectTimeoutMs: number
}

/** An OpenAI-compatible `/v1/embeddings` server for semantic tool search. */
export interface EmbeddingsConfig {
  /** Base URL including `/v1`. */
  url: string
  model: string
  apiKey?: string
}

export interface ServerConfig {
  host: string
  port: number
  /** Where state lives: the SQLite database, later file blobs. */
  home: string
  /** A PostgreSQL URL; when set, the store is PostgreSQL instead of SQLite. */
  databaseUrl?: string
  upstream?: UpstreamConfig
  /** Syntic model names (`"Syntic Code"`) to upstream model ids. */
  models: Record<string, string>
  /** Largest request body accepted; larger gets 413. */
  bodyLimitBytes: number
  /** One JSON line per request on stdout. */
  requestLog: boolean
  /** Unset: semantic tool search uses the embedded offline embedder. */
  embeddings?: EmbeddingsConfig
  /** Largest file `POST /v1/files` accepts; unset: 512 MiB (files/limits.ts). */
  filesMaxBytes?: number
}
