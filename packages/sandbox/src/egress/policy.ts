import { isIP } from 'node:net'

/** A package index pip installs from: a PyPI simple index, devpi, Artifactory, Nexus. */
export interface PackageMirror {
  /** The index URL, e.g. `https://pypi.internal.example/simple/`. */
  url: string
}

/** What a sandbox may reach on the network. Without it (and without a mirror) it has none. */
export interface EgressOptions {
  /**
   * Hosts the organisation allows: `pypi.org` (CONNECT to 443, plain HTTP to 80), `*.example.com`
   * (any subdomain, not the bare domain), `host:port` (that port only), public IP literals.
   */
  allow?: string[]
  /** The package mirror: undefined takes the driver's, null turns it off for this sandbox. */
  mirror?: PackageMirror | null
}

export interface HostRule {
  host: string
  /** `*.host`: matches names below host, not host itself. */
  wildcard: boolean
  /** Null: the default ports (443 through CONNECT, 80 for plain HTTP). */
  port: number | null
}

export interface ResolvedMirror {
  url: string
  host: string
  port: number
  /** Plain HTTP: pip needs the host named as trusted. */
  insecure: boolean
}

/** A sandbox's egress, checked and normalised; the proxy decides with it alone. */
export interface EgressPolicy {
  rules: HostRule[]
  mirror: ResolvedMirror | null
}

export type EgressVerdict =
  | { allowed: true; via: 'allowlist' | 'mirror' }
  | { allowed: false; reason: 'not_allowed' }

export const MAX_ALLOW_ENTRIES = 1000
const MAX_ENTRY_LENGTH = 300
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?'
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`)

/** Lower-cases a host, drops IPv6 brackets and a trailing dot; null when it is not a host. */
export function normalizeHost(raw: string): string | null {
  let host = raw.toLowerCase()
  if (host.startsWith('[') && host.endsWith(']')) {
    host = host.slice(1, -1)
    return isIP(host) === 6 ? host : null
  }
  if (host.endsWith('.')) host = host.slice(0, -1)
  if (isIP(host) !== 0) return host
  return host.length <= 253 && HOSTNAME.test(host) ? host : null
}

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null
  const port = Number(text)
  return port >= 1 && port <= 65_535 ? port : null
}

/** Parses one allowlist entry; throws a TypeError naming the entry when it is not one. */
export function parseHostRule(entry: string): HostRule {
  const bad = () => new TypeError(`egress allow entry ${JSON.stringify(entry)} is not a host`)
  if (entry.length === 0 || entry.length > MAX_ENTRY_LENGTH) throw bad()
  let text = entry.trim()
  let port: number | null = null
  const bracketed = /^(\[[^\]]+\])(?::(\d+))?$/.exec(text)
  if (bracketed) {
    text = bracketed[1] as string
    if (bracketed[2] !== undefined) port = parsePort(bracketed[2])
    if (bracketed[2] !== undefined && port === null) throw bad()
  } else if (isIP(text) !== 6) {
    const colon = text.lastIndexOf(':')
    if (colon !== -1) {
      port = parsePort(text.slice(colon + 1))
      if (port === null) throw bad()
      text = text.slice(0, colon)
    }
  }
  const wildcard = text.startsWith('*.')
  const host = normalizeHost(wildcard ? text.slice(2) : text)
  if (host === null || (wildcard && isIP(host) !== 0)) throw bad()
  return { host, wildcard, port }
}

/** Checks a mirror URL: http or https with a host; the port defaults by scheme. */
export function parseMirror(mirror: PackageMirror): ResolvedMirror {
  const raw = typeof mirror === 'object' && mirror !== null ? mirror.url : undefined
  let url: URL
  try {
    if (typeof raw !== 'string' || raw.length > 2048) throw new Error()
    url = new URL(raw)
  } catch {
    throw new TypeError('the package mirror must be an http or https URL')
  }
  const host = normalizeHost(url.hostname)
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || host === null) {
    throw new TypeError('the package mirror must be an http or https URL')
  }
  const insecure = url.protocol === 'http:'
  const port = url.port === '' ? (insecure ? 80 : 443) : Number(url.port)
  return { url: url.href, host, port, insecure }
}

/**
 * The policy for a new sandbox from the create options and the driver's mirror; null means no
 * network at all. A mirror alone turns egress on for the mirror only.
 */
export function resolveEgress(
  options: EgressOptions | undefined,
  driverMirror: PackageMirror | null,
): EgressPolicy | null {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError('egress must be an object')
  }
  const allow = options?.allow ?? []
  if (!Array.isArray(allow) || allow.length > MAX_ALLOW_ENTRIES) {
    throw new TypeError(`egress allow must be an array of at most ${MAX_ALLOW_ENTRIES} hosts`)
  }
  const rules = allow.map((entry: unknown) => {
    if (typeof entry !== 'string') throw new TypeError('egress allow entries must be strings')
    return parseHostRule(entry)
  })
  const mirrorOption = options?.mirror === undefined ? driverMirror : options.mirror
  const mirror = mirrorOption === null ? null : parseMirror(mirrorOption)
  if (rules.length === 0 && mirror === null) return null
  return { rules, mirror }
}

/** Whether a sandbox with this policy may open a connection to host:port. */
export function decideEgress(
  policy: EgressPolicy,
  host: string,
  port: number,
  method: 'connect' | 'http',
): EgressVerdict {
  const { mirror } = policy
  if (mirror && mirror.host === host && mirror.port === port)
    return { allowed: true, via: 'mirror' }
  const defaultPort = method === 'connect' ? 443 : 80
  for (const rule of policy.rules) {
    const portOk = rule.port === null ? port === defaultPort : port === rule.port
    const hostOk = rule.wildcard ? host.endsWith(`.${rule.host}`) : host === rule.host
    if (portOk && hostOk) return { allowed: true, via: 'allowlist' }
  }
  return { allowed: false, reason: 'not_allowed' }
}
