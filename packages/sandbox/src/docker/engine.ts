import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import type { Socket } from 'node:net'
import type { Readable } from 'node:stream'

/** The API version spoken: Docker 20.10 and Podman 4 both serve it. */
const API_PREFIX = '/v1.41'
/** Error and JSON bodies worth reading; anything larger from the daemon is cut off. */
const MAX_BODY_BYTES = 32 * 1024 * 1024

export class DockerApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'DockerApiError'
  }
}

export interface EngineAddress {
  /** Set for `unix://` hosts. */
  socketPath?: string
  hostname?: string
  port?: number
  /** True when the daemon shares this machine's filesystem (a unix socket). */
  local: boolean
}

/** Parses `unix:///path.sock` or `http://host:port`; anything else is refused. */
export function parseEngineHost(host: string): EngineAddress {
  if (typeof host !== 'string' || host.length === 0 || host.length > 1024) {
    throw new TypeError('the Docker host must be unix:///path or http://host:port')
  }
  if (host.startsWith('unix://')) {
    const socketPath = host.slice('unix://'.length)
    if (!socketPath.startsWith('/') || socketPath.includes('\0')) {
      throw new TypeError(`invalid Docker unix socket ${JSON.stringify(host)}`)
    }
    return { socketPath, local: true }
  }
  let url: URL
  try {
    url = new URL(host.startsWith('tcp://') ? `http://${host.slice(6)}` : host)
  } catch {
    throw new TypeError(`invalid Docker host ${JSON.stringify(host)}`)
  }
  if (url.protocol !== 'http:' || url.pathname !== '/' || url.search || url.username) {
    throw new TypeError(`the Docker host must be unix:///path or http://host:port, not ${host}`)
  }
  return {
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 2375),
    local: false,
  }
}

export interface EngineResponse {
  status: number
  body: Buffer
}

/**
 * A minimal Docker Engine API client over node:http: JSON calls, streamed uploads, and the
 * hijacked connection of `attach`. No keep-alive pool of its own: the daemon is close by.
 */
export class DockerEngine {
  constructor(readonly address: EngineAddress) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
    okStatuses: number[] = [200, 201, 204, 304],
  ): Promise<EngineResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
    const headers: Record<string, string> = payload
      ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) }
      : {}
    const response = await this.send(method, path, headers, payload)
    return this.check(response, okStatuses, method, path)
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { body: raw } = await this.call(method, path, body)
    return JSON.parse(raw.toString('utf8')) as T
  }

  /** Sends a request whose body is a stream (a tar archive). */
  async upload(
    method: string,
    path: string,
    contentType: string,
    body: Readable | Buffer,
  ): Promise<EngineResponse> {
    const response = await this.send(method, path, { 'Content-Type': contentType }, body)
    return this.check(response, [200, 201, 204], method, path)
  }

  /**
   * Opens a hijacked connection (attach): the daemon answers 101 and the socket becomes a raw
   * duplex stream, stdin one way and the multiplexed output the other.
   */
  hijack(path: string): Promise<{ socket: Socket; head: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({
        ...this.base(),
        method: 'POST',
        path: API_PREFIX + path,
        headers: { Connection: 'Upgrade', Upgrade: 'tcp' },
      })
      req.on('upgrade', (_res, socket, head) => resolve({ socket, head }))
      req.on('response', (res) => {
        readBody(res).then(
          (body) => reject(new DockerApiError(res.statusCode ?? 0, errorMessage(body))),
          reject,
        )
      })
      req.on('error', reject)
      req.end()
    })
  }

  private base(): RequestOptions {
    const a = this.address
    return a.socketPath ? { socketPath: a.socketPath } : { hostname: a.hostname, port: a.port }
  }

  private send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: Buffer | Readable,
  ): Promise<EngineResponse> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { ...this.base(), method, path: API_PREFIX + path, headers },
        (res) => {
          readBody(res).then(
            (buffer) => resolve({ status: res.statusCode ?? 0, body: buffer }),
            reject,
          )
        },
      )
      req.on('error', reject)
      if (body === undefined) req.end()
      else if (Buffer.isBuffer(body)) req.end(body)
      else {
        body.on('error', (error) => req.destroy(error))
        body.pipe(req)
      }
    })
  }

  private check(
    response: EngineResponse,
    okStatuses: number[],
    method: string,
    path: string,
  ): EngineResponse {
    if (okStatuses.includes(response.status)) return response
    throw new DockerApiError(
      response.status,
      `${method} ${path.split('?')[0]}: ${response.status} ${errorMessage(response.body)}`,
    )
  }
}

function readBody(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let total = 0
    res.on('data', (chunk: Buffer) => {
      total += chunk.length
      if (total <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    res.on('end', () => resolve(Buffer.concat(chunks)))
    res.on('error', reject)
  })
}

function errorMessage(body: Buffer): string {
  const text = body.toString('utf8').slice(0, 2000)
  try {
    const parsed = JSON.parse(text) as { message?: unknown }
    if (typeof parsed.message === 'string') return parsed.message
  } catch {
    // Not JSON: the daemon's text is the message.
  }
  return text.trim()
}
