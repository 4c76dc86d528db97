import { createHash, randomBytes } from 'node:crypto'

export const SECRET_PREFIX = 'sk_live_'
/** Characters of the secret kept for display: `sk_live_` and four more. */
export const DISPLAY_PREFIX_LENGTH = 12

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const SECRET_BYTES = 32
/** 62^43 > 2^256, so 43 base62 digits hold any 32 bytes; shorter encodings are left-padded. */
const SECRET_BODY_LENGTH = 43
const ID_BYTES = 16
const ID_BODY_LENGTH = 22
const SECRET_SHAPE = new RegExp(`^${SECRET_PREFIX}[0-9A-Za-z]{${SECRET_BODY_LENGTH}}$`)
const KEY_ID_SHAPE = new RegExp(`^key_[0-9A-Za-z]{${ID_BODY_LENGTH}}$`)
export const SECRET_LENGTH = SECRET_PREFIX.length + SECRET_BODY_LENGTH

export type IdPrefix = 'org_' | 'wrk_' | 'key_'

/** Base62 keeps secrets and ids free of `-` and `_`, so a double click selects them whole. */
function base62(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex')}`)
  let out = ''
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out
    n /= 62n
  }
  return out.padStart(length, '0')
}

/** A new API key secret: `sk_live_` and 32 random bytes in base62. */
export function generateSecret(): string {
  return SECRET_PREFIX + base62(randomBytes(SECRET_BYTES), SECRET_BODY_LENGTH)
}

/** A new id: the prefix and 128 random bits; nothing about the host that made it. */
export function newId(prefix: IdPrefix): string {
  return prefix + base62(randomBytes(ID_BYTES), ID_BODY_LENGTH)
}

/**
 * Whether a string has the exact shape of a secret. Anything else is refused before hashing or
 * touching the database, so garbage, oversized and hostile keys cost next to nothing.
 */
export function looksLikeSecret(value: string): boolean {
  return value.length === SECRET_LENGTH && SECRET_SHAPE.test(value)
}

/** Whether a string has the shape of a key id; anything else names no key. */
export function looksLikeKeyId(value: string): boolean {
  return value.length === 4 + ID_BODY_LENGTH && KEY_ID_SHAPE.test(value)
}

/**
 * SHA-256 of the secret, hex. A slow password hash (bcrypt, scrypt) guards low-entropy secrets
 * against offline guessing; these secrets are 256 random bits, which no guessing reaches, so a
 * fast hash is as safe and keeps authentication, on every request, to microseconds.
 *
 * The database is searched by this hash, never by the secret. Lookup timing can then reveal at
 * most how much of a hash matched, and an attacker cannot choose inputs to steer a hash, so the
 * indexed lookup needs no constant-time comparison.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** What listings show of a secret. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH)
}
