import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { type RunningServer, startServer } from '../app.js'
import type { ServerConfig } from '../config.js'
import type { RequestLogRecord } from '../request-log.js'
import type { ToolIndex } from '../server-tools/index.js'
import { openStore } from '../store/open.js'
import type { Store } from '../store/port.js'
import { ScriptedUpstream } from '../testing/scripted-upstream.js'
import type { UpstreamFormat } from '../upstream/port.js'

export interface HarnessOptions {
  /** The upstream's format; null runs the server without an upstream. Default openai. */
  format?: UpstreamFormat | null
  models?: Record<string, string>
  timeoutMs?: number
  bodyLimitBytes?: number
  /** The tool search index; by default the server builds its own. */
  toolIndex?: ToolIndex
}

/**
 * A real server on 127.0.0.1:0 with a real SQLite store in a temporary home, a key created
 * through the store, and the scripted upstream as its model. The request log and the error log
 * are captured.
 */
export class Harness {
  private constructor(
    readonly server: RunningServer,
    readonly upstream: ScriptedUpstream,
    /** A second handle on the server's database, as `syntic keys` would use. */
    readonly store: Store,
    readonly key: string,
    private readonly home: string,
    private readonly lines: string[],
    /** Lines written to the error log: unexpected exceptions, with stacks. */
    readonly errors: string[],
  ) {}

  /** The request log so far, parsed: a malformed line fails the test that reads it. */
  get log(): RequestLogRecord[] {
    return this.lines.map((line) => JSON.parse(line) as RequestLogRecord)
  }

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const home = mkdtempSync(join(tmpdir(), 'syntic-e2e-'))
    const upstream = await ScriptedUpstream.start()
    const format = options.format === undefined ? 'openai' : options.format
    const config: ServerConfig = {
      host: '127.0.0.1',
      port: 0,
      home,
      models: options.models ?? {},
      bodyLimitBytes: options.bodyLimitBytes ?? 32 * 1024 * 1024,
      requestLog: true,
    }
    if (format !== null) {
      config.upstream = {
        url: format === 'openai' ? upstream.openaiUrl : upstream.anthropicUrl,
        apiKey: 'sk-upstream-secret',
        format,
        timeoutMs: options.timeoutMs ?? 10_000,
        connectTimeoutMs: 2_000,
      }
    }
    const lines: string[] = []
    const errors: string[] = []
    const server = await startServer(config, {
      log: { write: (line: string) => lines.push(line) },
      errorLog: { write: (line: string) => errors.push(line) },
      ...(options.toolIndex ? { toolIndex: options.toolIndex } : {}),
    })
    const store = await openStore({ home })
    const { key } = await store.createKey({ org: 'acme', workspace: 'research' })
    return new Harness(server, upstream, store, key, home, lines, errors)
  }

  get url(): string {
    return this.server.url
  }

  openai(apiKey: string = this.key): OpenAI {
    return new OpenAI({ baseURL: `${this.url}/v1`, apiKey, maxRetries: 0 })
  }

  anthropic(apiKey: string = this.key): Anthropic {
    return new Anthropic({ baseURL: this.url, apiKey, maxRetries: 0 })
  }

  /** A raw request with the harness's key unless `headers` says otherwise. */
  fetch(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (!headers.has('authorization') && !headers.has('x-api-key')) {
      headers.set('authorization', `Bearer ${this.key}`)
    }
    let body = init.body
    if (init.json !== undefined) {
      body = JSON.stringify(init.json)
      if (!headers.has('content-type')) headers.set('content-type', 'application/json')
    }
    return fetch(`${this.url}${path}`, {
      ...init,
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body: body ?? null,
    })
  }

  /** The log line of the request with this id, waiting briefly: it is written on close. */
  async logLine(id: string): Promise<RequestLogRecord> {
    for (let i = 0; i < 100; i++) {
      const line = this.log.find((l) => l.id === id)
      if (line) return line
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`no request log line for ${id}`)
  }

  /** Stops everything; fails if the server logged an unexpected exception along the way. */
  async close(): Promise<void> {
    await this.server.close()
    await this.upstream.close()
    await this.store.close()
    rmSync(this.home, { recursive: true, force: true })
    if (this.errors.length > 0) {
      throw new Error(`the server logged unexpected errors:\n${this.errors.join('')}`)
    }
  }
}

/** The envelope of an error response, checked for shape. */
export interface Envelope {
  type: 'error'
  error: { type: string; code: string; message: string; param: string | null }
  request_id: string
}

export async function envelopeOf(response: Response): Promise<Envelope> {
  const body = (await response.json()) as Envelope
  if (body.type !== 'error' || typeof body.error?.code !== 'string') {
    throw new Error(`not an error envelope: ${JSON.stringify(body)}`)
  }
  if (body.request_id !== response.headers.get('x-request-id')) {
    throw new Error('the envelope and the header carry different request ids')
  }
  return body
}
