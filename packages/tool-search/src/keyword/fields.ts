// What keyword mode reads of a tool definition, field by field. Definitions come from callers, so
// nothing here trusts their shape: non-strings are skipped, schemas are walked to a bounded depth
// and size, and every field stops at a bounded number of words.
import type { ToolDocument } from '../types.js'

export const FIELDS = [
  'name',
  'description',
  'parameterNames',
  'parameterDescriptions',
  'nested',
] as const

export type FieldName = (typeof FIELDS)[number]

export const FIELD_COUNT = FIELDS.length

/** A field by its position in `FIELDS`. */
export const Field = {
  Name: 0,
  Description: 1,
  ParameterNames: 2,
  ParameterDescriptions: 3,
  Nested: 4,
} as const

export type Field = (typeof Field)[keyof typeof Field]

/** Words kept per field: enough for any real description, bounded for hostile ones. */
export const MAX_FIELD_WORDS = 2048

/** Characters of one string read; longer strings are cut before tokenizing. */
export const MAX_TEXT_CHARS = 32_768

/** How deep into a parameter schema nested properties are still read. */
export const MAX_SCHEMA_DEPTH = 12

/** Schema nodes visited per tool, so a huge schema costs a bounded time. */
export const MAX_SCHEMA_NODES = 4096

/** Receives each text of a tool, in reading order, with the field it belongs to. */
export interface FieldSink {
  add(field: Field, text: unknown): void
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Hands every text of one tool to `sink`, field by field as `FIELDS` describes them.
 *
 * Schemas come in many shapes, and asking an object of a shape not seen before for a key by name
 * goes through the engine's slowest path, the more so for keys it lacks. So each schema object's
 * own keys are read in one pass (`for...in`: definitions are JSON data, whose own keys are all
 * the keys there are) and handled afterwards in a fixed order: measured in cold builds at 10,000
 * tools, this cut the walk's time by about a quarter.
 */
export function readFields(doc: ToolDocument, sink: FieldSink): void {
  sink.add(Field.Name, doc.name)
  sink.add(Field.Description, doc.description)
  const schema = doc.parameters
  if (!isRecord(schema) || !isRecord(schema.properties)) return
  const budget = { nodes: MAX_SCHEMA_NODES }
  const properties = schema.properties
  for (const key in properties) {
    if (--budget.nodes < 0) break
    sink.add(Field.ParameterNames, key)
    const property = properties[key]
    if (!isRecord(property)) continue
    const parts = schemaParts(property, 1)
    sink.add(Field.ParameterDescriptions, parts.description)
    if (--budget.nodes >= 0) readParts(parts, sink, 1, budget)
  }
}

/** What the index reads of one schema object. */
class SchemaParts {
  description: unknown
  values: unknown
  properties: unknown
  items: unknown
  anyOf: unknown
  oneOf: unknown
  allOf: unknown
  additionalProperties: unknown

  clear(): this {
    this.description = undefined
    this.values = undefined
    this.properties = undefined
    this.items = undefined
    this.anyOf = undefined
    this.oneOf = undefined
    this.allOf = undefined
    this.additionalProperties = undefined
    return this
  }
}

/**
 * One `SchemaParts` per depth, reused: a node's parts are read before its children's, which sit
 * one level deeper, so nothing still needed is overwritten, and a build allocates none per node.
 */
const partsByDepth = Array.from({ length: MAX_SCHEMA_DEPTH + 1 }, () => new SchemaParts())

function schemaParts(node: Record<string, unknown>, depth: number): SchemaParts {
  const parts = partsByDepth[depth]!.clear()
  for (const key in node) {
    switch (key) {
      case 'description':
        parts.description = node[key]
        break
      case 'enum':
        parts.values = node[key]
        break
      case 'properties':
        parts.properties = node[key]
        break
      case 'items':
        parts.items = node[key]
        break
      case 'anyOf':
        parts.anyOf = node[key]
        break
      case 'oneOf':
        parts.oneOf = node[key]
        break
      case 'allOf':
        parts.allOf = node[key]
        break
      case 'additionalProperties':
        parts.additionalProperties = node[key]
    }
  }
  return parts
}

/**
 * Everything below a top-level parameter: nested property names and descriptions, array items,
 * enum values and the branches of anyOf/oneOf/allOf.
 */
function readNested(
  node: unknown,
  sink: FieldSink,
  depth: number,
  budget: { nodes: number },
): void {
  if (depth > MAX_SCHEMA_DEPTH || --budget.nodes < 0) return
  if (Array.isArray(node)) {
    for (const item of node) readNested(item, sink, depth + 1, budget)
    return
  }
  if (!isRecord(node)) return
  const parts = schemaParts(node, depth)
  sink.add(Field.Nested, parts.description)
  readParts(parts, sink, depth, budget)
}

/** A schema object's enum values, nested properties and branches (its description is read). */
function readParts(parts: SchemaParts, sink: FieldSink, depth: number, budget: { nodes: number }) {
  if (Array.isArray(parts.values)) {
    for (const value of parts.values) {
      if (--budget.nodes < 0) return
      sink.add(Field.Nested, value)
    }
  }
  const properties = parts.properties
  if (isRecord(properties)) {
    for (const key in properties) {
      if (--budget.nodes < 0) return
      sink.add(Field.Nested, key)
      readNested(properties[key], sink, depth + 1, budget)
    }
  }
  const next = depth + 1
  if (parts.items !== undefined) readNested(parts.items, sink, next, budget)
  if (parts.anyOf !== undefined) readNested(parts.anyOf, sink, next, budget)
  if (parts.oneOf !== undefined) readNested(parts.oneOf, sink, next, budget)
  if (parts.allOf !== undefined) readNested(parts.allOf, sink, next, budget)
  if (parts.additionalProperties !== undefined) {
    readNested(parts.additionalProperties, sink, next, budget)
  }
}
