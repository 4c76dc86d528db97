import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const ID_CHARS = 24
// Random bytes are drawn in batches: one call to the CSPRNG per 256 ids keeps the hot path cheap.
const POOL_IDS = 256
let pool = Buffer.alloc(0)
let offset = 0

/**
 * `req_` + 24 base-62 characters (about 142 bits). Bytes >= 248 are skipped so every character
 * is equally likely.
 */
export function newRequestId(): string {
  let id = 'req_'
  while (id.length < ID_CHARS + 4) {
    if (offset >= pool.length) {
      pool = randomBytes(ID_CHARS * POOL_IDS * 2)
      offset = 0
    }
    const byte = pool[offset++]!
    if (byte < 248) id += ALPHABET[byte % 62]
  }
  return id
}
