// Any server that speaks OpenAI's `POST /v1/embeddings` (vLLM, llama.cpp, Ollama, OpenAI, TEI).
import { type Embedder, EmbedderError } from '../types.js'

export interface OpenAICompatibleEmbedderOptions {
  /** The server's base URL, without `/v1` (a trailing `/v1` is tolerated). */
  url: string
  apiKey?: string
  model: string
  /** Texts per request. */
  batchSize?: number
  /** Per request. */
  timeoutMs?: number
  /** Asked of models that can shorten their vectors; every vector must have this length. */
  dimensions?: number
  /** Largest response body read, in bytes. */
  maxResponseBytes?: number
}

export const DEFAULT_BATCH_SIZE = 64
export const DEFAULT_TIMEOUT_MS = 30_000
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
const EXCERPT_CHARS = 200

export class OpenAICompatibleEmbedder implements Embedder {
  readonly id: string
  private readonly endpoint: string
  private readonly batchSize: number
  private readonly timeoutMs: number
  private readonly maxResponseBytes: number

  constructor(private readonly options: OpenAICompatibleEmbedderOptions) {
    let base: URL
    try {
      base = new URL(options.url)
    } catch {
      throw new EmbedderError(`the embeddings URL is not a URL: ${JSON.stringify(options.url)}`)
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new EmbedderError(`the embeddings URL must be http or https, not ${base.protocol}`)
    }
    const path = base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')
    this.endpoint = `${base.origin}${path}/v1/embeddings`
    if (typeof options.model !== 'string' || options.model.length === 0) {
      throw new EmbedderError('the embeddings model is required')
    }
    this.batchSize = positive(options.batchSize, DEFAULT_BATCH_SIZE, 'batchSize')
    this.timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs')
    this.maxResponseBytes = positive(
      options.maxResponseBytes,
      DEFAULT_MAX_RESPONSE_BYTES,
      'maxResponseBytes',
    )
    if (options.dimensions !== undefined) positive(options.dimensions, 0, 'dimensions')
    this.id = `openai-compatible:${this.endpoint}#${options.model}${options.dimensions ? `@${options.dimensions}` : ''}`
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = []
    for (let start = 0; start < texts.length; start += this.batchSize) {
      out.push(...(await this.request(texts.slice(start, start + this.batchSize), signal)))
    }
    return out
  }

  private async request(batch: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(this.timeoutMs)
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`
    const body: Record<string, unknown> = {
      model: this.options.model,
      // Empty strings are rejected by some servers; a space embeds as "nothing" everywhere.
      input: batch.map((text) => (text.length > 0 ? text : ' ')),
      encoding_format: 'float',
    }
    if (this.options.dimensions) body.dimensions = this.options.dimensions
    let text: string
    let status: number
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: combined,
      })
      status = response.status
      text = await readBounded(response, this.maxResponseBytes)
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      if (timeout.aborted) {
        throw new EmbedderError(`the embeddings server did not answer within ${this.timeoutMs} ms`)
      }
      if (error instanceof EmbedderError) throw error
      const cause =
        error instanceof Error && error.cause instanceof Error ? error.cause.message : ''
      throw new EmbedderError(
        `the embeddings server at ${this.endpoint} is unreachable${cause ? `: ${cause}` : ''}`,
      )
    }
    if (status < 200 || status > 299) {
      throw new EmbedderError(
        `the embeddings server answered ${status}: ${redact(text, this.options.apiKey)}`,
      )
    }
    return this.parse(text, batch.length)
  }

  private parse(text: string, expected: number): Float32Array[] {
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new EmbedderError(
        `the embeddings server sent a body that is not JSON: ${excerpt(text)}`,
      )
    }
    const data = (body as { data?: unknown } | null)?.data
    if (!Array.isArray(data)) {
      throw new EmbedderError('the embeddings server sent no "data" array')
    }
    if (data.length !== expected) {
      throw new EmbedderError(
        `the embeddings server sent ${data.length} vectors for ${expected} texts`,
      )
    }
    const vectors: Float32Array[] = new Array(expected)
    let dims = this.options.dimensions ?? 0
    data.forEach((item: unknown, position) => {
      const entry = item as { index?: unknown; embedding?: unknown } | null
      const index = entry?.index ?? position
      const embedding = entry?.embedding
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= expected) {
        throw new EmbedderError(`the embeddings server sent a bad index: ${JSON.stringify(index)}`)
      }
      if (vectors[index as number])
        throw new EmbedderError(`the embeddings server sent index ${index} twice`)
      if (
        !Array.isArray(embedding) ||
        embedding.length === 0 ||
        !embedding.every(Number.isFinite)
      ) {
        throw new EmbedderError(
          `the embeddings server sent a malformed embedding at index ${index}`,
        )
      }
      if (dims === 0) dims = embedding.length
      if (embedding.length !== dims) {
        throw new EmbedderError(
          `the embeddings server sent a vector of ${embedding.length} dimensions, expected ${dims}`,
        )
      }
      vectors[index as number] = Float32Array.from(embedding as number[])
    })
    return vectors
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1) {
    throw new EmbedderError(`${name} must be a positive integer, not ${value}`)
  }
  return value
}

async function readBounded(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0)
  if (declared > limit) {
    await response.body?.cancel()
    throw new EmbedderError(`the embeddings response is larger than ${limit} bytes`)
  }
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body) {
    size += chunk.length
    if (size > limit) {
      throw new EmbedderError(`the embeddings response is larger than ${limit} bytes`)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat
}

/** An excerpt of an error body with the key and anything shaped like a secret masked. */
function redact(text: string, apiKey: string | undefined): string {
  let masked = excerpt(text)
  if (apiKey) masked = masked.split(apiKey).join('[redacted]')
  return masked.replace(/\b(sk|pk|rk)[-_][A-Za-z0-9_-]{8,}/g, '[redacted]')
}
