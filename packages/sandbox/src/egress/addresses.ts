import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'

/** Address ranges a sandbox must never reach: the host, internal networks, cloud metadata. */
const FORBIDDEN_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
]

/** IPv6 ranges refused outright; v4-mapped and NAT64 addresses are judged by their IPv4 part. */
const FORBIDDEN_V6: [string, number][] = [
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
]

function v4Bytes(address: string): number[] {
  return address.split('.').map(Number)
}

/** The 16 bytes of an IPv6 address, including the dotted-quad tail form. */
export function v6Bytes(address: string): number[] {
  let text = address.split('%')[0] as string
  let tail: number[] = []
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    tail = v4Bytes(dotted[1] as string)
    text = `${text.slice(0, -(dotted[1] as string).length)}0:0`
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined]
  const groups = (part: string | undefined) => (part ? part.split(':') : [])
  const left = groups(head)
  const right = groups(rest)
  const missing = 8 - left.length - right.length
  const all = [...left, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...right]
  const bytes = all.flatMap((g) => {
    const n = Number.parseInt(g, 16)
    return [n >> 8, n & 0xff]
  })
  if (tail.length === 4) bytes.splice(12, 4, ...tail)
  return bytes
}

function inRange(bytes: number[], base: number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const take = Math.min(8, prefix - bit)
    const mask = (0xff << (8 - take)) & 0xff
    const i = bit / 8
    if (((bytes[i] ?? 0) & mask) !== ((base[i] ?? 0) & mask)) return false
  }
  return true
}

const V4_RANGES = FORBIDDEN_V4.map(([base, prefix]) => ({ base: v4Bytes(base), prefix }))
const V6_RANGES = FORBIDDEN_V6.map(([base, prefix]) => ({ base: v6Bytes(base), prefix }))
const V4_MAPPED = v6Bytes('::ffff:0:0')
const NAT64 = v6Bytes('64:ff9b::')

/** The IPv4 address an IPv6 one stands for (v4-mapped, NAT64), or null. */
function embeddedV4(bytes: number[]): number[] | null {
  if (inRange(bytes, V4_MAPPED, 96) || inRange(bytes, NAT64, 96)) return bytes.slice(12)
  return null
}

/**
 * True for an address that is not public: private, loopback, link-local (cloud metadata at
 * 169.254.169.254), CGNAT, multicast, reserved, documentation, or one of this host's own.
 * Anything that is not an IP literal is refused too.
 */
export function isForbiddenAddress(address: string, ownAddresses = hostAddresses()): boolean {
  const family = isIP(address)
  if (family === 0) return true
  const normal = address.toLowerCase().split('%')[0] as string
  if (ownAddresses.has(normal)) return true
  if (family === 4) {
    const bytes = v4Bytes(normal)
    return V4_RANGES.some((r) => inRange(bytes, r.base, r.prefix))
  }
  const bytes = v6Bytes(normal)
  const v4 = embeddedV4(bytes)
  if (v4) return isForbiddenAddress(v4.join('.'), ownAddresses)
  return V6_RANGES.some((r) => inRange(bytes, r.base, r.prefix))
}

/** This host's interface addresses: public ones too, so a sandbox cannot reach the host by them. */
export function hostAddresses(): Set<string> {
  const own = new Set<string>()
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) own.add(info.address.toLowerCase().split('%')[0] as string)
  }
  return own
}
