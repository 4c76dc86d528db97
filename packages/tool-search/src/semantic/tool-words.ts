// The words of a tool a meaning is read from: its name split as people read it, its description
// and its parameter names, each with the weight of its field. No stemming: word vectors know
// "refunds" and "refund" apart from each other and close together.
import { MAX_TEXT_CHARS } from '../keyword/fields.js'
import { STOP_WORDS, splitWords } from '../tokenize.js'
import type { ToolDocument } from '../types.js'
import { SEMANTIC_SETTINGS } from './settings.js'

export interface WeightedWord {
  word: string
  weight: number
}

/** Words of a text without stop words, read from at most MAX_TEXT_CHARS characters. */
export function contentWords(text: unknown): string[] {
  if (typeof text !== 'string') return []
  const cut = text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text
  return splitWords(cut).filter((word) => !STOP_WORDS.has(word))
}

function parameterNames(doc: ToolDocument): string[] {
  const schema = doc.parameters
  if (typeof schema !== 'object' || schema === null) return []
  const properties = (schema as { properties?: unknown }).properties
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return []
  return Object.keys(properties)
}

export function toolWords(doc: ToolDocument): WeightedWord[] {
  const { fieldWeights } = SEMANTIC_SETTINGS
  const words: WeightedWord[] = []
  for (const word of contentWords(doc.name)) words.push({ word, weight: fieldWeights.name })
  for (const word of contentWords(doc.description)) {
    words.push({ word, weight: fieldWeights.description })
  }
  for (const name of parameterNames(doc)) {
    for (const word of contentWords(name)) words.push({ word, weight: fieldWeights.parameterNames })
  }
  return words
}

/** What an external embedder reads of a tool: name words, description, parameter names. */
export function toolText(doc: ToolDocument): string {
  const name = contentWords(doc.name).join(' ')
  const description = typeof doc.description === 'string' ? doc.description : ''
  const parameters = parameterNames(doc).flatMap(contentWords).join(' ')
  return [name, description, parameters].filter((part) => part.length > 0).join('\n')
}
