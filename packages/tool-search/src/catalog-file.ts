// Reads a catalog as applications send it: request-style tools
// ({"type": "function", "function": {...}}) or bare function objects, in a JSON array.
import type { ToolDocument } from './types.js'

export class CatalogFileError extends Error {
  override readonly name = 'CatalogFileError'
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Validates a parsed catalog and returns what the index reads of each tool. */
export function parseCatalog(value: unknown): ToolDocument[] {
  if (!Array.isArray(value)) throw new CatalogFileError('the catalog must be a JSON array of tools')
  return value.map((item, i) => {
    const fail = (why: string): never => {
      throw new CatalogFileError(`tool ${i}: ${why}`)
    }
    if (!isRecord(item)) fail('expected an object')
    const tool = item as Record<string, unknown>
    const fn = 'function' in tool ? tool.function : tool
    if (!isRecord(fn)) fail('"function" must be an object')
    const { name, description, parameters } = fn as Record<string, unknown>
    if (typeof name !== 'string' || name === '') fail('"name" must be a non-empty string')
    if (description !== undefined && typeof description !== 'string') {
      fail('"description" must be a string')
    }
    if (parameters !== undefined && !isRecord(parameters)) fail('"parameters" must be an object')
    const doc: ToolDocument = { name: name as string }
    if (description !== undefined) doc.description = description as string
    if (parameters !== undefined) doc.parameters = parameters
    return doc
  })
}
