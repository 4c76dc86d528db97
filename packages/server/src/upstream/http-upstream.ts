import type { IncomingHttpHeaders } from 'node:http'
import { type Dispatcher, Pool } from 'undici'
import type { UpstreamConfig } from '../config.js'
import {
  abortReason,
  type FailurePhase,
  invalidReply,
  statusError,
  transportError,
  type UpstreamTarget,
  upstreamExcerpt,
  upstreamMessage,
} from './errors.js'
import {
  MAX_UPSTREAM_ERROR_BYTES,
  MAX_UPSTREAM_JSON_BYTES,
  UPSTREAM_CONNECTIONS,
} from './limits.js'
import type { Upstream, UpstreamFormat, UpstreamRequest, UpstreamResult } from './port.js'
import { BodyTooLargeError, readBody, readBodyPrefix } from './read-body.js'
import { SseEventStream } from './sse-stream.js'

type Body = Dispatcher.ResponseData['body']

/** What differs between upstream formats: the endpoint below the base URL and the auth headers. */
export interface UpstreamDialect {
  format: UpstreamFormat
  /** Appended to the base URL's path, e.g. `/chat/completions`. */
  endpoint: string
  headers: Record<string, string>
}

/**
 * An upstream reached over HTTP/1.1 through one keep-alive undici Pool, shared by every request.
 * The hot path does one JSON.stringify, one pool.request and one JSON.parse; everything else
 * (headers, path, error context) is computed once here.
 */
export class HttpUpstream implements Upstream {
  readonly format: UpstreamFormat
  private readonly pool: Pool
  private readonly path: string
  private readonly jsonHeaders: Record<string, string>
  private readonly streamHeaders: Record<string, string>
  private readonly target: UpstreamTarget

  constructor(config: UpstreamConfig, dialect: UpstreamDialect) {
    const url = new URL(config.url)
    this.format = dialect.format
    this.target = {
      origin: url.origin,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
    }
    this.path = `${url.pathname.replace(/\/+$/, '')}${dialect.endpoint}${url.search}`
    const common = { 'content-type': 'application/json', ...dialect.headers }
    this.jsonHeaders = { ...common, accept: 'application/json' }
    this.streamHeaders = { ...common, accept: 'text/event-stream' }
    this.pool = new Pool(url.origin, {
      connections: UPSTREAM_CONNECTIONS,
      pipelining: 1,
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
      connectTimeout: config.connectTimeoutMs,
    })
  }

  async send(request: UpstreamRequest): Promise<UpstreamResult> {
    const { signal, stream } = request
    let response: Dispatcher.ResponseData
    try {
      response = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: stream ? this.streamHeaders : this.jsonHeaders,
        body: JSON.stringify(withStreamFlag(request.body, stream)),
        signal,
      })
    } catch (error) {
      throw this.failure(error, signal, 'request')
    }
    const { statusCode, headers, body } = response
    if (statusCode < 200 || statusCode > 299) {
      const text = await readBodyPrefix(body, MAX_UPSTREAM_ERROR_BYTES)
      if (signal.aborted) throw abortReason(signal)
      throw statusError(statusCode, text, header(headers, 'retry-after'), this.target)
    }
    if (stream) return { kind: 'stream', events: await this.events(headers, body, signal) }
    return { kind: 'json', body: await this.json(headers, body, signal) }
  }

  close(): Promise<void> {
    return this.pool.close()
  }

  excerpt(text: string): string {
    return upstreamExcerpt(text, this.target.apiKey)
  }

  private async json(headers: IncomingHttpHeaders, body: Body, signal: AbortSignal) {
    const length = Number(header(headers, 'content-length'))
    if (length > MAX_UPSTREAM_JSON_BYTES) {
      body.destroy()
      throw invalidReply(this.target, `the reply is larger than ${MAX_UPSTREAM_JSON_BYTES} bytes`)
    }
    let text: string
    try {
      // A declared length bounds the body already (the HTTP parser stops there), so undici's own
      // whole-body read, which skips the stream machinery, is safe; otherwise count as it comes.
      text = Number.isFinite(length)
        ? await body.text()
        : await readBody(body, MAX_UPSTREAM_JSON_BYTES)
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        throw invalidReply(this.target, `the reply is larger than ${MAX_UPSTREAM_JSON_BYTES} bytes`)
      }
      throw this.failure(error, signal, 'body')
    }
    try {
      return JSON.parse(text) as unknown
    } catch {
      throw invalidReply(
        this.target,
        `the reply is not JSON: ${upstreamMessage(text, this.target.apiKey)}`,
      )
    }
  }

  private async events(
    headers: IncomingHttpHeaders,
    body: Body,
    signal: AbortSignal,
  ): Promise<SseEventStream> {
    const type = header(headers, 'content-type') ?? ''
    if (!type.startsWith('text/event-stream')) {
      const text = await readBodyPrefix(body, MAX_UPSTREAM_ERROR_BYTES)
      if (signal.aborted) throw abortReason(signal)
      throw invalidReply(
        this.target,
        `a streamed request was answered with ${JSON.stringify(type)} instead of an event stream: ${upstreamMessage(text, this.target.apiKey)}`,
      )
    }
    return new SseEventStream(body, signal, this.target, this.format)
  }

  private failure(error: unknown, signal: AbortSignal, phase: FailurePhase): Error {
    if (signal.aborted) return abortReason(signal)
    return transportError(error, this.target, phase)
  }
}

/** The body as sent, with `stream` agreeing with the request (copied only when it disagrees). */
function withStreamFlag(body: Record<string, unknown>, stream: boolean): Record<string, unknown> {
  if (body.stream === stream || (!stream && body.stream === undefined)) return body
  return { ...body, stream }
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}
