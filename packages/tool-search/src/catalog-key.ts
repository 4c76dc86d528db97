import { createHash } from 'node:crypto'
import type { ToolDocument } from './types.js'

/**
 * A SHA-256 of what the index reads of each tool (name, description, parameters), in order. The
 * cache is shared by every caller of a server, so the hash must resist crafted collisions: a
 * fast non-cryptographic hash would let one tenant's catalog answer for another's. One native
 * JSON.stringify of the whole projection, then one hash call, is the cheapest way measured to
 * get there (a JavaScript walk over the strings, or a hash update per tool, cost more).
 */
export function catalogKey(tools: readonly ToolDocument[]): string {
  return hashCatalog(tools).key
}

/** The key, and the length of the text hashed: a measure of the memory the definitions take. */
export function hashCatalog(tools: readonly ToolDocument[]): { key: string; chars: number } {
  const projection = tools.map((tool) => [tool.name, tool.description, tool.parameters])
  const text = JSON.stringify(projection)
  return { key: createHash('sha256').update(text).digest('base64url'), chars: text.length }
}
