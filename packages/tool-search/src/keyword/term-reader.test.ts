import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createTokenizer, tokenize } from '../tokenize.js'
import { FIELD_COUNT, Field, MAX_FIELD_WORDS } from './fields.js'
import { TermReader } from './term-reader.js'

/** A seeded generator, so a failure names a text that can be found again. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

const PIECES = [
  'get',
  'Get',
  'GET',
  'orders',
  'Orders',
  'HTTP',
  'Response',
  'IDs',
  'URLs',
  'v2',
  'x509',
  '3d',
  'base64',
  'the',
  'The',
  'of',
  'categories',
  'status',
  'café',
  'École',
  'İstanbul',
  'ß',
  'ǅ',
  '😀',
  '\uD800',
  '_',
  '-',
  '.',
  ' ',
  '  ',
  '\t',
  '\n',
  '9',
  'a',
  'A',
  's',
  'S',
  'Σ',
  'ΣΊΣΥΦΟΣ',
]

function randomText(next: () => number): string {
  let text = ''
  const pieces = Math.floor(next() * 40)
  for (let i = 0; i < pieces; i++) text += PIECES[Math.floor(next() * PIECES.length)]
  return text
}

/** The words the reader stored for field `field` of tool `tool`. */
function wordsOf(reader: TermReader, tool: number, field: number): string[] {
  const end = reader.ends[tool * FIELD_COUNT + field]!
  const start = tool * FIELD_COUNT + field === 0 ? 0 : reader.ends[tool * FIELD_COUNT + field - 1]!
  return Array.from(reader.ids.subarray(start, end), (id) => reader.termNames[id]!)
}

test('the reader indexes exactly the words the tokenizer gives, whatever the spelling', () => {
  const next = random(7)
  const texts = Array.from({ length: 3000 }, () => randomText(next))
  const reader = new TermReader(tokenize, texts.length)
  texts.forEach((text) => {
    reader.add(Field.Description, text)
    reader.endTool()
  })
  texts.forEach((text, tool) => {
    assert.deepEqual(wordsOf(reader, tool, Field.Description), tokenize(text), JSON.stringify(text))
  })
  assert.equal(new Set(reader.termNames).size, reader.termNames.length, 'one id per term')
})

test('thousands of distinct spellings keep their own terms', () => {
  // Sized for 25 tools, so the spelling table starts small and grows and rehashes on the way.
  const reader = new TermReader(tokenize, Math.ceil(50_000 / MAX_FIELD_WORDS))
  // Letters only, so each is one word: 'wb', 'wc', ... 'wbaa'.
  const letters = (i: number): string =>
    (i >= 26 ? letters(Math.floor(i / 26)) : '') + String.fromCharCode(97 + (i % 26))
  const words = Array.from({ length: 50_000 }, (_, i) => `w${letters(i)}`)
  reader.add(Field.Description, words.slice(0, MAX_FIELD_WORDS).join(' '))
  reader.endTool()
  for (let from = MAX_FIELD_WORDS; from < words.length; from += MAX_FIELD_WORDS) {
    reader.add(Field.Description, words.slice(from, from + MAX_FIELD_WORDS).join(' '))
    reader.endTool()
  }
  const stored = []
  for (let tool = 0; tool * MAX_FIELD_WORDS < words.length; tool++) {
    stored.push(...wordsOf(reader, tool, Field.Description))
  }
  assert.deepEqual(stored, tokenize(words.join(' ')))
})

test('a tokenizer with its own stop words and stemming is read the same way', () => {
  const plain = createTokenizer({ stemming: 'none', stopWords: new Set(['orders']) })
  const reader = new TermReader(plain, 1)
  reader.add(Field.Name, 'listOrders Orders orders the boxes')
  reader.endTool()
  assert.deepEqual(wordsOf(reader, 0, Field.Name), ['list', 'the', 'boxes'])
})

test('a field stops at its word limit, counting only the words kept', () => {
  const reader = new TermReader(tokenize, 1)
  reader.add(Field.Name, 'the '.repeat(5000) + 'order '.repeat(MAX_FIELD_WORDS + 10))
  reader.add(Field.Name, 'never')
  reader.endTool()
  const words = wordsOf(reader, 0, Field.Name)
  assert.equal(words.length, MAX_FIELD_WORDS)
  assert.ok(words.every((word) => word === 'order'))
})
