import { normalizeHost } from './policy.js'

/** A client's proxy request: a CONNECT tunnel, or one plain HTTP request in absolute form. */
export type ProxyRequest =
  | { kind: 'connect'; host: string; port: number }
  /** `head` is the request rewritten to origin form, with `Connection: close`. */
  | { kind: 'http'; host: string; port: number; head: string }

export class ProxyRequestError extends Error {
  constructor(
    readonly status: 400 | 405,
    message: string,
  ) {
    super(message)
    this.name = 'ProxyRequestError'
  }
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** Hop-by-hop headers and the proxy's own: never passed to the destination. */
const DROPPED = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization'])

function authority(text: string): { host: string; port: number } | null {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(text)
  if (!match) return null
  const host = normalizeHost(match[1] as string)
  const port = Number(match[2])
  return host && port >= 1 && port <= 65_535 ? { host, port } : null
}

/** Parses a request head (latin1, up to and excluding the blank line). */
export function parseProxyRequest(head: string): ProxyRequest {
  const lines = head.split('\r\n')
  const requestLine = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(lines[0] ?? '')
  if (!requestLine) throw new ProxyRequestError(400, 'malformed request line')
  const method = requestLine[1] as string
  const target = requestLine[2] as string
  const headers: [string, string][] = []
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon)
    if (colon <= 0 || !TOKEN.test(name) || /[\r\n\0]/.test(line)) {
      throw new ProxyRequestError(400, 'malformed header line')
    }
    headers.push([name, line.slice(colon + 1).trim()])
  }
  if (method === 'CONNECT') {
    const dest = authority(target)
    if (!dest) throw new ProxyRequestError(400, 'CONNECT needs host:port')
    return { kind: 'connect', ...dest }
  }
  if (!target.startsWith('http://')) {
    throw new ProxyRequestError(
      405,
      'only CONNECT and absolute http:// requests are proxied (use https:// through CONNECT)',
    )
  }
  let url: URL
  try {
    url = new URL(target)
  } catch {
    throw new ProxyRequestError(400, 'malformed URL')
  }
  const host = normalizeHost(url.hostname)
  if (!host) throw new ProxyRequestError(400, 'malformed host')
  const port = url.port === '' ? 80 : Number(url.port)
  const kept = headers.filter(([name]) => !DROPPED.has(name.toLowerCase()))
  if (!kept.some(([name]) => name.toLowerCase() === 'host')) kept.unshift(['Host', url.host])
  const rewritten = [
    `${method} ${url.pathname}${url.search} HTTP/1.1`,
    ...kept.map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
    '',
    '',
  ].join('\r\n')
  return { kind: 'http', host, port, head: rewritten }
}
