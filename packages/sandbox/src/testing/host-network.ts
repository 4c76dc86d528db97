import { readFileSync } from 'node:fs'

/** The host's IPv4 default gateways, from the kernel's routing table. */
export function defaultGateways(): string[] {
  return readFileSync('/proc/net/route', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[1] === '00000000' && f[2] !== undefined && f[2] !== '00000000')
    .map((f) => {
      // Little-endian hex: the last byte pair is the first octet.
      const hex = f[2]!
      return [6, 4, 2, 0].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join('.')
    })
}
