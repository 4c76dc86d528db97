import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { SseEvent } from '../upstream/port.js'

export { fixtureNames, loadFixture } from './fixtures.js'

/** One scripted answer. `raw` sends a body byte for byte, for replies no real server would send. */
export type ScriptedReply =
  | { status?: number; json: unknown; delayMs?: number; headers?: Record<string, string> }
  | {
      sse: SseEvent[]
      eventDelayMs?: number
      status?: number
      /** Destroy the socket after this many events. */
      breakAfter?: number
      headers?: Record<string, string>
    }
  | { raw: string; status?: number; headers?: Record<string, string> }
  | { hang: true }
  | { destroy: true }

export type ScriptStep = ScriptedReply | ((request: RecordedRequest) => ScriptedReply)

export interface RecordedRequest {
  method: string
  path: string
  headers: Record<string, string>
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown
  /** The client went away before the reply was finished. */
  aborted: boolean
}

export interface ScriptedUpstreamOptions {
  /** Keep every request in `requests` (default). Benchmarks turn it off to stay lean. */
  record?: boolean
}

const CHAT_PATH = '/v1/chat/completions'
const MESSAGES_PATH = '/v1/messages'

/**
 * The test double for the upstream model: an OpenAI- and Anthropic-compatible HTTP server on
 * 127.0.0.1 that answers `POST /v1/chat/completions` and `POST /v1/messages` from a script.
 */
export class ScriptedUpstream {
  readonly origin: string
  readonly requests: RecordedRequest[] = []
  private readonly queue: ScriptStep[] = []
  private fallback: ScriptStep | null = null
  private readonly sockets = new Set<Socket>()
  private readonly abortWaiters: { index: number; resolve: () => void }[] = []
  private readonly aborted = new Set<number>()
  private readonly serialized = new WeakMap<object, string>()
  private accepted = 0
  private received = 0

  private constructor(
    private readonly server: Server,
    private readonly record: boolean,
  ) {
    const { port } = server.address() as AddressInfo
    this.origin = `http://127.0.0.1:${port}`
    server.on('connection', (socket: Socket) => {
      this.accepted += 1
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
    server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      this.receive(request, response),
    )
  }

  static async start(options: ScriptedUpstreamOptions = {}): Promise<ScriptedUpstream> {
    // A long keep-alive, so the client (not this server) decides when idle sockets close.
    const server = createServer({ keepAliveTimeout: 60_000 })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => resolve())
    })
    return new ScriptedUpstream(server, options.record ?? true)
  }

  /** The OpenAI-format base URL (with `/v1`). */
  get openaiUrl(): string {
    return `${this.origin}/v1`
  }

  /** The Anthropic-format base URL (without `/v1`). */
  get anthropicUrl(): string {
    return this.origin
  }

  /** TCP connections accepted so far: shows whether a client reuses its sockets. */
  get connections(): number {
    return this.accepted
  }

  /** TCP connections open now. */
  get openConnections(): number {
    return this.sockets.size
  }

  enqueue(...replies: ScriptStep[]): void {
    this.queue.push(...replies)
  }

  /** The reply when the queue is empty; `null` makes an empty queue answer 500. */
  setDefault(reply: ScriptStep | null): void {
    this.fallback = reply
  }

  /** Resolves once the client of request #index disconnected before its reply was finished. */
  waitForAbort(index: number, timeoutMs = 5000): Promise<void> {
    if (this.aborted.has(index)) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const waiter = {
        index,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      }
      const timer = setTimeout(() => {
        this.abortWaiters.splice(this.abortWaiters.indexOf(waiter), 1)
        reject(new Error(`request #${index} was not aborted within ${timeoutMs} ms`))
      }, timeoutMs)
      this.abortWaiters.push(waiter)
    })
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()))
    this.server.closeAllConnections()
    await closed
  }

  private receive(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const index = this.received
      this.received += 1
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: flatHeaders(request),
        body: parseBody(Buffer.concat(chunks).toString('utf8')),
        aborted: false,
      }
      if (this.record) this.requests.push(recorded)
      const state = { closedByScript: false }
      response.on('close', () => {
        if (response.writableFinished || state.closedByScript) return
        recorded.aborted = true
        this.noteAbort(index)
      })
      this.answer(recorded, index, response, state)
    })
  }

  private answer(
    recorded: RecordedRequest,
    index: number,
    response: ServerResponse,
    state: { closedByScript: boolean },
  ): void {
    const path = recorded.path.split('?')[0]
    if (recorded.method !== 'POST' || (path !== CHAT_PATH && path !== MESSAGES_PATH)) {
      this.sendJson(response, 404, errorBody(`no route for ${recorded.method} ${path}`), undefined)
      return
    }
    const step = this.queue.shift() ?? this.fallback
    if (step === null) {
      const message = `the scripted upstream ran out of replies (request #${index}, ${recorded.method} ${recorded.path})`
      this.sendJson(response, 500, errorBody(message), undefined)
      return
    }
    const reply = typeof step === 'function' ? step(recorded) : step
    if ('hang' in reply) return
    if ('destroy' in reply) {
      state.closedByScript = true
      response.socket?.destroy()
      return
    }
    if ('raw' in reply) {
      response.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers })
      response.end(reply.raw)
      return
    }
    if ('json' in reply) {
      const { json, status = 200, headers, delayMs } = reply
      if (delayMs === undefined) this.sendJson(response, status, json, headers)
      else void pause(response, delayMs).then(() => this.sendJson(response, status, json, headers))
      return
    }
    void this.sendEvents(response, reply, path === CHAT_PATH, state)
  }

  private sendJson(
    response: ServerResponse,
    status: number,
    json: unknown,
    headers: Record<string, string> | undefined,
  ): void {
    if (response.destroyed) return
    const text = this.serialize(json)
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    })
    response.end(text)
  }

  private async sendEvents(
    response: ServerResponse,
    reply: Extract<ScriptedReply, { sse: SseEvent[] }>,
    sendDone: boolean,
    state: { closedByScript: boolean },
  ): Promise<void> {
    const { sse, eventDelayMs, breakAfter } = reply
    response.writeHead(reply.status ?? 200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      ...reply.headers,
    })
    response.flushHeaders()
    // Breaking waits for the events before it to be flushed, so the client surely receives them.
    let written: Promise<void> = Promise.resolve()
    for (let i = 0; i < sse.length; i++) {
      if (breakAfter === i) return this.breakOff(response, written, state)
      if (eventDelayMs !== undefined && i > 0) await pause(response, eventDelayMs)
      if (response.destroyed) return
      const text = formatEvent(sse[i]!)
      written = new Promise((resolve) => response.write(text, () => resolve()))
    }
    if (breakAfter === sse.length) return this.breakOff(response, written, state)
    response.end(sendDone ? 'data: [DONE]\n\n' : undefined)
  }

  private async breakOff(
    response: ServerResponse,
    written: Promise<void>,
    state: { closedByScript: boolean },
  ): Promise<void> {
    await written
    state.closedByScript = true
    response.socket?.destroy()
  }

  private serialize(json: unknown): string {
    if (typeof json !== 'object' || json === null) return JSON.stringify(json)
    let text = this.serialized.get(json)
    if (text === undefined) {
      text = JSON.stringify(json)
      this.serialized.set(json, text)
    }
    return text
  }

  private noteAbort(index: number): void {
    this.aborted.add(index)
    for (let i = this.abortWaiters.length - 1; i >= 0; i--) {
      const waiter = this.abortWaiters[i]!
      if (waiter.index !== index) continue
      this.abortWaiters.splice(i, 1)
      waiter.resolve()
    }
  }
}

/** One event in the wire format: `event:` when named, one `data:` line per line of data. */
export function formatEvent(event: SseEvent): string {
  const data = `data: ${event.data.replaceAll('\n', '\ndata: ')}\n\n`
  return event.event === undefined ? data : `event: ${event.event}\n${data}`
}

function flatHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function errorBody(message: string): unknown {
  return { error: { message, type: 'scripted_upstream_error' } }
}

/** Waits `ms`, or less if the connection closes first: a gone client leaves no timer behind. */
function pause(response: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      response.off('close', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    response.on('close', done)
  })
}
