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

/** Hands every text of one tool to `sink`, field by field as `FIELDS` describes them. */
export function readFields(doc: ToolDocument, sink: FieldSink): void {
  sink.add(Field.Name, doc.name)
  sink.add(Field.Description, doc.description)
  const schema = doc.parameters
  if (!isRecord(schema) || !isRecord(schema.properties)) return
  const budget = { nodes: MAX_SCHEMA_NODES }
  const properties = schema.properties
  for (const key of Object.keys(properties)) {
    if (--budget.nodes < 0) break
    sink.add(Field.ParameterNames, key)
    const property = properties[key]
    if (!isRecord(property)) continue
    sink.add(Field.ParameterDescriptions, property.description)
    readNested(property, sink, 1, budget, true)
  }
}

/**
 * Everything below a top-level parameter: nested property names and descriptions, array items,
 * enum values and the branches of anyOf/oneOf/allOf.
 *
 * A node's own keys are read in one pass and then handled in a fixed order. Asking each node for
 * the eight keys by name was most of a cold build's time in this walk: schema nodes come in many
 * shapes, so every lookup, mostly of a key the node lacks, went through the slowest path.
 */
function readNested(
  node: unknown,
  sink: FieldSink,
  depth: number,
  budget: { nodes: number },
  topLevel: boolean,
): void {
  if (depth > MAX_SCHEMA_DEPTH || --budget.nodes < 0) return
  if (Array.isArray(node)) {
    for (const item of node) readNested(item, sink, depth + 1, budget, false)
    return
  }
  if (!isRecord(node)) return
  let description: unknown
  let values: unknown
  let properties: unknown
  let items: unknown
  let anyOf: unknown
  let oneOf: unknown
  let allOf: unknown
  let additional: unknown
  for (const key in node) {
    switch (key) {
      case 'description':
        description = node[key]
        break
      case 'enum':
        values = node[key]
        break
      case 'properties':
        properties = node[key]
        break
      case 'items':
        items = node[key]
        break
      case 'anyOf':
        anyOf = node[key]
        break
      case 'oneOf':
        oneOf = node[key]
        break
      case 'allOf':
        allOf = node[key]
        break
      case 'additionalProperties':
        additional = node[key]
    }
  }
  // A top-level parameter's own description is in its own field already.
  if (!topLevel) sink.add(Field.Nested, description)
  if (Array.isArray(values)) {
    for (const value of values) {
      if (--budget.nodes < 0) return
      sink.add(Field.Nested, value)
    }
  }
  if (isRecord(properties)) {
    for (const key of Object.keys(properties)) {
      if (--budget.nodes < 0) return
      sink.add(Field.Nested, key)
      readNested(properties[key], sink, depth + 1, budget, false)
    }
  }
  for (const branch of [items, anyOf, oneOf, allOf, additional]) {
    if (branch !== undefined) readNested(branch, sink, depth + 1, budget, false)
  }
}
