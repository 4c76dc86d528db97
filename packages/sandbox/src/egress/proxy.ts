import { promises as dns } from 'node:dns'
import { chmod, chown, rm } from 'node:fs/promises'
import { createConnection, createServer, isIP, type Server, type Socket } from 'node:net'
import { hostAddresses, isForbiddenAddress } from './addresses.js'
import { decideEgress, type EgressPolicy } from './policy.js'
import { type ProxyRequest, ProxyRequestError, parseProxyRequest } from './request-head.js'

/** One line of the egress log: every request the proxy answered, allowed or not. */
export interface EgressDecision {
  sandbox: string
  host: string
  port: number
  method: 'connect' | 'http' | 'unknown'
  allowed: boolean
  /** allowlist | mirror | not_allowed | forbidden_address | resolve_failed | connect_failed |
   * too_many_connections | byte_limit | bad_request */
  reason: string
  /** The address connected to, or the one that got the request refused. */
  address?: string
}

/** The decision for a connection refused before its request named a target. */
function unparsed(reason: string): Omit<EgressDecision, 'sandbox'> {
  return { host: '', port: 0, method: 'unknown', allowed: false, reason }
}

export interface EgressProxyOptions {
  /** Connections open at once per sandbox. */
  maxConnectionsPerSandbox?: number
  /** Bytes (both directions) per sandbox over its life; past it connections are cut. */
  maxBytesPerSandbox?: number
  /** Resolve through these DNS servers (`ip` or `ip:port`) instead of the host's resolver. */
  dnsServers?: string[]
  /** A connection with no traffic for this long is closed. */
  idleTimeoutMs?: number
  /** Where decisions go; by default one JSON line each on stderr. */
  log?: (decision: EgressDecision) => void
}

export const EGRESS_DEFAULTS: Readonly<EgressLimits> = Object.freeze({
  maxConnectionsPerSandbox: 32,
  maxBytesPerSandbox: 2 * 1024 ** 3,
  idleTimeoutMs: 120_000,
})
interface EgressLimits {
  maxConnectionsPerSandbox: number
  maxBytesPerSandbox: number
  idleTimeoutMs: number
}

const MAX_HEAD_BYTES = 16 * 1024
const HEAD_TIMEOUT_MS = 30_000
const CONNECT_TIMEOUT_MS = 10_000

interface Attached {
  id: string
  policy: EgressPolicy
  server: Server
  sockets: Set<Socket>
  open: number
  bytes: number
}

/**
 * The host-side egress proxy: one per driver, listening on one Unix socket per sandbox, so the
 * socket a connection arrives on is the sandbox's identity. It resolves names itself and connects
 * only to vetted addresses, so a DNS answer cannot be swapped between the check and the connect.
 */
export class EgressProxy {
  private readonly attached = new Map<string, Attached>()
  private readonly limits: EgressLimits
  private readonly resolver: dns.Resolver | null
  private readonly log: (decision: EgressDecision) => void

  constructor(options: EgressProxyOptions = {}) {
    this.limits = {
      maxConnectionsPerSandbox:
        options.maxConnectionsPerSandbox ?? EGRESS_DEFAULTS.maxConnectionsPerSandbox,
      maxBytesPerSandbox: options.maxBytesPerSandbox ?? EGRESS_DEFAULTS.maxBytesPerSandbox,
      idleTimeoutMs: options.idleTimeoutMs ?? EGRESS_DEFAULTS.idleTimeoutMs,
    }
    this.resolver = null
    if (options.dnsServers && options.dnsServers.length > 0) {
      this.resolver = new dns.Resolver({ timeout: 3000, tries: 2 })
      this.resolver.setServers(options.dnsServers)
    }
    this.log =
      options.log ??
      ((decision) =>
        process.stderr.write(`${JSON.stringify({ event: 'sandbox_egress', ...decision })}\n`))
  }

  /** Listens for one sandbox on socketPath, which only the sandbox's uid may connect to. */
  async attach(id: string, socketPath: string, policy: EgressPolicy, uid: number): Promise<void> {
    if (this.attached.has(id)) throw new Error(`egress already attached for ${id}`)
    const sockets = new Set<Socket>()
    const server = createServer((socket) => this.accept(entry, socket))
    const entry: Attached = { id, policy, server, sockets, open: 0, bytes: 0 }
    await rm(socketPath, { force: true })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(socketPath, () => resolve())
    })
    await chown(socketPath, uid, uid)
    await chmod(socketPath, 0o600)
    this.attached.set(id, entry)
  }

  /** Stops a sandbox's listener and cuts its connections. */
  async detach(id: string): Promise<void> {
    const entry = this.attached.get(id)
    if (!entry) return
    this.attached.delete(id)
    for (const socket of entry.sockets) socket.destroy()
    await new Promise<void>((resolve) => entry.server.close(() => resolve()))
  }

  usage(id: string): { open: number; bytes: number } | undefined {
    const entry = this.attached.get(id)
    return entry && { open: entry.open, bytes: entry.bytes }
  }

  async close(): Promise<void> {
    await Promise.all([...this.attached.keys()].map((id) => this.detach(id)))
  }

  private track(entry: Attached, socket: Socket): void {
    entry.sockets.add(socket)
    socket.on('close', () => entry.sockets.delete(socket))
    socket.on('error', () => undefined)
  }

  private accept(entry: Attached, client: Socket): void {
    this.track(entry, client)
    const refuse = (status: number, text: string, decision: Omit<EgressDecision, 'sandbox'>) => {
      this.log({ sandbox: entry.id, ...decision })
      respond(client, status, text)
    }
    if (entry.open >= this.limits.maxConnectionsPerSandbox) {
      refuse(
        429,
        `at most ${this.limits.maxConnectionsPerSandbox} connections at once`,
        unparsed('too_many_connections'),
      )
      return
    }
    entry.open++
    client.once('close', () => entry.open--)
    client.setTimeout(HEAD_TIMEOUT_MS, () => client.destroy())
    let buffered = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      const end = buffered.indexOf('\r\n\r\n')
      if (end === -1 && buffered.length <= MAX_HEAD_BYTES) return
      client.off('data', onData)
      client.pause()
      if (end === -1 || end > MAX_HEAD_BYTES) {
        refuse(
          400,
          `the request head is larger than ${MAX_HEAD_BYTES} bytes`,
          unparsed('bad_request'),
        )
        return
      }
      let request: ProxyRequest
      try {
        request = parseProxyRequest(buffered.subarray(0, end).toString('latin1'))
      } catch (error) {
        const status = error instanceof ProxyRequestError ? error.status : 400
        refuse(status, (error as Error).message, unparsed('bad_request'))
        return
      }
      void this.forward(entry, client, request, buffered.subarray(end + 4), refuse)
    }
    client.on('data', onData)
  }

  private async forward(
    entry: Attached,
    client: Socket,
    request: ProxyRequest,
    rest: Buffer,
    refuse: (status: number, text: string, decision: Omit<EgressDecision, 'sandbox'>) => void,
  ): Promise<void> {
    const { host, port, kind } = request
    const base = { host, port, method: kind }
    const verdict = decideEgress(entry.policy, host, port, kind)
    if (!verdict.allowed) {
      const target = kind === 'connect' ? `${host}:${port}` : `http://${host}:${port}`
      refuse(403, `${target} is not on this sandbox's egress allowlist`, {
        ...base,
        allowed: false,
        reason: verdict.reason,
      })
      return
    }
    if (entry.bytes >= this.limits.maxBytesPerSandbox) {
      refuse(429, 'this sandbox has used its network allowance', {
        ...base,
        allowed: false,
        reason: 'byte_limit',
      })
      return
    }
    let addresses: string[]
    try {
      addresses = await this.resolve(host)
    } catch {
      refuse(502, `cannot resolve ${host}`, { ...base, allowed: false, reason: 'resolve_failed' })
      return
    }
    // The operator's mirror may live on an internal network; hosts the organisation lists may not.
    const own = hostAddresses()
    const forbidden =
      verdict.via === 'mirror' ? undefined : addresses.find((a) => isForbiddenAddress(a, own))
    if (forbidden !== undefined || addresses.length === 0) {
      refuse(403, `${host} resolves to an address sandboxes may not reach`, {
        ...base,
        allowed: false,
        reason: 'forbidden_address',
        address: forbidden,
      })
      return
    }
    if (client.destroyed) return
    const upstream = await connectFirst(addresses, port)
    if (!upstream || client.destroyed) {
      upstream?.destroy()
      if (!upstream) {
        refuse(502, `cannot connect to ${host}:${port}`, {
          ...base,
          allowed: false,
          reason: 'connect_failed',
        })
      }
      return
    }
    this.log({
      sandbox: entry.id,
      ...base,
      allowed: true,
      reason: verdict.via,
      address: upstream.remoteAddress,
    })
    this.track(entry, upstream)
    if (!this.attached.has(entry.id)) {
      upstream.destroy()
      client.destroy()
      return
    }
    if (kind === 'connect') {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n')
      entry.bytes += rest.length
      upstream.write(rest)
    } else {
      const head = Buffer.from(request.head, 'latin1')
      entry.bytes += head.length + rest.length
      upstream.write(Buffer.concat([head, rest]))
    }
    this.splice(entry, client, upstream)
  }

  private splice(entry: Attached, client: Socket, upstream: Socket): void {
    const count = (chunk: Buffer) => {
      entry.bytes += chunk.length
      if (entry.bytes > this.limits.maxBytesPerSandbox) {
        this.log({
          sandbox: entry.id,
          host: '',
          port: 0,
          method: 'unknown',
          allowed: false,
          reason: 'byte_limit',
        })
        client.destroy()
        upstream.destroy()
      }
    }
    for (const socket of [client, upstream]) {
      socket.setTimeout(this.limits.idleTimeoutMs, () => socket.destroy())
      socket.on('data', count)
      socket.on('close', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.pipe(client)
    client.resume()
  }

  private async resolve(host: string): Promise<string[]> {
    if (isIP(host) !== 0) return [host]
    if (this.resolver) {
      const [v4, v6] = await Promise.allSettled([
        this.resolver.resolve4(host),
        this.resolver.resolve6(host),
      ])
      const found = [
        ...(v4.status === 'fulfilled' ? v4.value : []),
        ...(v6.status === 'fulfilled' ? v6.value : []),
      ]
      if (found.length === 0) throw new Error(`cannot resolve ${host}`)
      return found
    }
    const found = await dns.lookup(host, { all: true, verbatim: true })
    return found.map((a) => a.address)
  }
}

function respond(socket: Socket, status: number, text: string): void {
  const reason =
    { 400: 'Bad Request', 403: 'Forbidden', 405: 'Method Not Allowed', 429: 'Too Many Requests' }[
      status
    ] ?? 'Bad Gateway'
  const body = `Syntic egress proxy: ${text}\n`
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/** Connects to the first address that answers, in the resolver's order. */
async function connectFirst(addresses: string[], port: number): Promise<Socket | null> {
  for (const address of addresses.slice(0, 4)) {
    const socket = await new Promise<Socket | null>((resolve) => {
      const s = createConnection({ host: address, port })
      const fail = () => {
        s.destroy()
        resolve(null)
      }
      s.setTimeout(CONNECT_TIMEOUT_MS, fail)
      s.once('error', fail)
      s.once('connect', () => {
        s.setTimeout(0)
        s.off('error', fail)
        resolve(s)
      })
    })
    if (socket) return socket
  }
  return null
}
