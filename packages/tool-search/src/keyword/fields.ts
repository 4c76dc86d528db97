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

/** Words kept per field: enough for any real description, bounded for hostile ones. */
export const MAX_FIELD_WORDS = 2048

/** Characters of one string read; longer strings are cut before tokenizing. */
export const MAX_TEXT_CHARS = 32_768

/** How deep into a parameter schema nested properties are still read. */
export const MAX_SCHEMA_DEPTH = 12

/** Schema nodes visited per tool, so a huge schema costs a bounded time. */
export const MAX_SCHEMA_NODES = 4096

type Tokenizer = (text: string) => string[]

class FieldWords {
  readonly words: string[] = []
  constructor(private readonly tokenizer: Tokenizer) {}

  add(text: unknown): void {
    if (typeof text !== 'string' || this.words.length >= MAX_FIELD_WORDS) return
    const cut = text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text
    for (const word of this.tokenizer(cut)) {
      if (this.words.length >= MAX_FIELD_WORDS) return
      this.words.push(word)
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The words of each field of one tool, in the order of `FIELDS`. */
export function fieldWords(doc: ToolDocument, tokenizer: Tokenizer): string[][] {
  const [name, description, parameterNames, parameterDescriptions, nested] = FIELDS.map(
    () => new FieldWords(tokenizer),
  ) as [FieldWords, FieldWords, FieldWords, FieldWords, FieldWords]
  name.add(doc.name)
  description.add(doc.description)
  const schema = doc.parameters
  const budget = { nodes: MAX_SCHEMA_NODES }
  if (isRecord(schema) && isRecord(schema.properties)) {
    for (const [key, property] of Object.entries(schema.properties)) {
      if (--budget.nodes < 0) break
      parameterNames.add(key)
      if (!isRecord(property)) continue
      parameterDescriptions.add(property.description)
      readNested(property, nested, 1, budget, true)
    }
  }
  return [
    name.words,
    description.words,
    parameterNames.words,
    parameterDescriptions.words,
    nested.words,
  ]
}

/**
 * Everything below a top-level parameter: nested property names and descriptions, array items,
 * enum values and the branches of anyOf/oneOf/allOf.
 */
function readNested(
  node: unknown,
  into: FieldWords,
  depth: number,
  budget: { nodes: number },
  topLevel: boolean,
): void {
  if (depth > MAX_SCHEMA_DEPTH || --budget.nodes < 0) return
  if (Array.isArray(node)) {
    for (const item of node) readNested(item, into, depth + 1, budget, false)
    return
  }
  if (!isRecord(node)) return
  // A top-level parameter's own description is in its own field already.
  if (!topLevel) into.add(node.description)
  if (Array.isArray(node.enum)) {
    for (const value of node.enum) {
      if (--budget.nodes < 0) return
      into.add(value)
    }
  }
  if (isRecord(node.properties)) {
    for (const [key, property] of Object.entries(node.properties)) {
      if (--budget.nodes < 0) return
      into.add(key)
      readNested(property, into, depth + 1, budget, false)
    }
  }
  for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties'] as const) {
    if (node[key] !== undefined) readNested(node[key], into, depth + 1, budget, false)
  }
}
