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

/** A model with its upstream id and the server tools it may use (unset: all of them). */
export interface ModelConfig {
  id: string
  server_tools?: string[]
}

/** Code execution's sandboxes (spec: code-execution). */
export interface SandboxConfig {
  /** `local` (bubblewrap + cgroups, the default) or `docker` (Docker Engine API, Podman). */
  driver: 'local' | 'docker'
  /** The Docker Engine API address for the docker driver (`unix:///run/docker.sock`, `tcp://...`). */
  dockerHost?: string
  /** Live sandboxes this server's fleet may hold; past it new containers get 503 `overloaded`. */
  maxSandboxes: number
  /** Sandboxes kept started so that a new container costs no start-up. */
  poolSize: number
  /** Idle and absolute container lifetimes (spec: 30 minutes, 24 hours). */
  idleMs: number
  maxLifetimeMs: number
  reapIntervalMs: number
  /** Names this server's fleet in a shared store; by default the driver and host name. */
  fleet?: string
  /** Per-run wall-clock limit; the spec's 120 s unless set (tests shorten it). */
  runTimeoutMs?: number
  /** The PyPI index sandboxes may reach for pip (`SYNTIC_PACKAGE_MIRROR_URL`); unset: none. */
  packageMirrorUrl?: string
}

/** What a tier (an organisation's plan, `syntic orgs set --tier`) sets. */
export interface TierConfig {
  /** Live containers an organisation of the tier may hold; past it 429 `container_limit_reached`. */
  containerLimit: number
}

export interface ServerConfig {
  host: string
  port: number
  /** Where state lives: the SQLite database, later file blobs. */
  home: string
  /** A PostgreSQL URL; when set, the store is PostgreSQL instead of SQLite. */
  databaseUrl?: string
  upstream?: UpstreamConfig
  /** Syntic model names (`"Syntic Code"`) to upstream model ids, or to `{ id, server_tools }`. */
  models: Record<string, string | ModelConfig>
  /** Largest request body accepted; larger gets 413. */
  bodyLimitBytes: number
  /** One JSON line per request on stdout. */
  requestLog: boolean
  /** Unset: semantic tool search uses the embedded offline embedder. */
  embeddings?: EmbeddingsConfig
  /** Largest file `POST /v1/files` accepts; unset: 512 MiB (files/limits.ts). */
  filesMaxBytes?: number
  /** Code execution's sandboxes; unset: the local driver with the defaults. */
  sandbox?: SandboxConfig
  /** Tier names to what they set; unset or missing a tier: the `default` tier's, else 20. */
  tiers?: Record<string, TierConfig>
}
