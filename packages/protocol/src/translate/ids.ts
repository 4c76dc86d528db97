// New ids for the cases where the source format carried none. Upstream ids are kept as they are.

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
const RANDOM_CHARS = 24

/** The prefix each format gives its ids: messages, chat completions, tool calls, server tool calls. */
export type IdPrefix = 'msg_' | 'chatcmpl-' | 'toolu_' | 'call_' | 'srv_'

/** A prefix plus 24 random letters and digits (about 143 bits). */
export function newId(prefix: IdPrefix): string {
  const bytes = crypto.getRandomValues(new Uint8Array(RANDOM_CHARS))
  let id = prefix
  // 256 is not a multiple of 62; the slight bias costs under a bit of the 143.
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length]
  return id
}

/** Unix time in whole seconds, as chat completions carry it in `created`. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000)
}
