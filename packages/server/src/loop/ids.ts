import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** `srv_` and 24 random base-62 characters: the id of one server tool call. */
export function newServerToolCallId(): string {
  const bytes = randomBytes(24)
  let id = 'srv_'
  // The slight modulo bias is harmless: ids must be unique, not secret.
  for (const byte of bytes) id += ALPHABET[byte % 62]
  return id
}

/** A tool call id for a call the upstream sent without one. */
export function newCallId(): string {
  return `call_${newServerToolCallId().slice(4)}`
}

/** The id of a completion the loop assembled from several upstream calls. */
export function newCompletionId(): string {
  return `chatcmpl-${newServerToolCallId().slice(4)}`
}
