import { randomBytes } from 'node:crypto'

/** Crockford's base32: no I, L, O or U, so ids read aloud and typed by hand survive. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const TIME_CHARS = 10
const RANDOM_CHARS = 16
const RANDOM_BITS = 80n
const BODY = new RegExp(`^[${CROCKFORD}]{${TIME_CHARS + RANDOM_CHARS}}$`)

export type SortableIdPrefix = 'file_' | 'cntr_'

function encode(value: bigint, length: number): string {
  let out = ''
  let n = value
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(n & 31n)] + out
    n >>= 5n
  }
  return out
}

let lastTime = -1
let lastRandom = 0n

/**
 * A new id that sorts in creation order: 48 bits of milliseconds then 80 random bits (the ULID
 * layout). Within one millisecond the random part counts up, so ids made by this process never
 * tie and listings can page by id alone. The time is already public as `created_at`; the id says
 * nothing else about the host.
 */
export function newSortableId(prefix: SortableIdPrefix, now: number = Date.now()): string {
  if (now > lastTime) {
    lastTime = now
    lastRandom = BigInt(`0x${randomBytes(10).toString('hex')}`)
  } else {
    lastRandom = (lastRandom + 1n) & ((1n << RANDOM_BITS) - 1n)
  }
  return prefix + encode(BigInt(lastTime), TIME_CHARS) + encode(lastRandom, RANDOM_CHARS)
}

/** Whether a string has the exact shape of an id with this prefix; nothing else names a row. */
export function looksLikeSortableId(prefix: SortableIdPrefix, value: string): boolean {
  return (
    value.length === prefix.length + TIME_CHARS + RANDOM_CHARS &&
    value.startsWith(prefix) &&
    BODY.test(value.slice(prefix.length))
  )
}
