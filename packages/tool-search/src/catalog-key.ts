import { createHash } from 'node:crypto'
import type { ToolDocument } from './types.js'

/** Tools serialised and hashed per step, so a background check yields between steps. */
export const KEY_SLICE_TOOLS = 512

export interface HashedCatalog {
  /** SHA-256 of what the index reads of each tool. */
  key: string
  /** Length of the text hashed: a measure of the memory the definitions take. */
  chars: number
}

/**
 * A SHA-256 of what the index reads of each tool (name, description, parameters), in order. Safe
 * to share between tenants: a crafted collision would need a SHA-256 collision. Each slice of
 * tools is one native JSON.stringify (a self-delimiting array text), then one hash update.
 */
export function catalogKey(tools: readonly ToolDocument[]): string {
  return hashCatalog(tools).key
}

/** The full key, computed in one go. */
export function hashCatalog(tools: readonly ToolDocument[]): HashedCatalog {
  const steps = hashCatalogInSteps(tools)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/** The full key, one slice of tools per step: for checks that must not hold the event loop. */
export function* hashCatalogInSteps(
  tools: readonly ToolDocument[],
): Generator<void, HashedCatalog, void> {
  const hash = createHash('sha256')
  let chars = 0
  for (let start = 0; start === 0 || start < tools.length; start += KEY_SLICE_TOOLS) {
    if (start > 0) yield
    const slice = tools.slice(start, start + KEY_SLICE_TOOLS)
    const text = JSON.stringify(slice.map((tool) => [tool.name, tool.description, tool.parameters]))
    hash.update(text)
    chars += text.length
  }
  return { key: hash.digest('base64url'), chars }
}

/**
 * A cheap fingerprint of a catalog, for looking it up within one scope (a workspace): the tool
 * count and, for each tool in order, its name's length, its description's length and whether it
 * has parameters. Its cost is memory reads of definitions a request has just parsed: each tool
 * and the headers of its two strings, where the lengths are. At 10,000 tools that is 0.45 to
 * 0.75 ms; each character read on top costs about 0.1 ms more (the last one of each name: 0.6
 * to 0.9 ms; first, middle and last of the name and the description's middle: 0.75 to 1.15 ms),
 * and hashing all names takes 1.4 to 1.8 ms. Not collision resistant, so never a key shared
 * across scopes; an edit it misses (a rename or a description edit keeping the length, a
 * parameter change) is caught by the background check against the full key.
 */
export function catalogFingerprint(tools: readonly ToolDocument[]): string {
  const count = tools.length
  let a = 0x811c9dc5 ^ count
  let b = 0x2545f491 ^ count
  for (let i = 0; i < count; i++) {
    const tool = tools[i]!
    const name = tool.name
    const description = tool.description
    a = Math.imul(a ^ (typeof name === 'string' ? name.length : -1), 0x01000193)
    const described = typeof description === 'string' ? description.length : -1
    b = Math.imul(b ^ (described ^ (tool.parameters === undefined ? 0 : 1 << 30)), 0x5bd1e995)
    b ^= b >>> 13
  }
  return `${count}.${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`
}
