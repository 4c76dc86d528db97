import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ToolDocument } from '../types.js'
import { KeywordIndex } from './keyword-index.js'
import { DEFAULT_KEYWORD_SETTINGS, type KeywordSettings } from './settings.js'

const catalog: ToolDocument[] = [
  {
    name: 'create_refund',
    description: 'Refund part or all of an order.',
    parameters: {
      type: 'object',
      properties: {
        order_number: { type: 'string', description: 'The order to refund' },
        amount_pence: { type: 'integer' },
      },
    },
  },
  { name: 'get_order', description: 'Look up an order by its number.' },
  { name: 'send_email', description: 'Send an email; mention a refund in the subject if needed.' },
  { name: 'getWeatherForecast', description: 'Forecast for a city.' },
]

const names = (index: KeywordIndex, query: string, limit = 10) =>
  index.search(query, limit).map((h) => h.name)

test('a tool whose name matches beats one that only mentions the word', () => {
  const index = KeywordIndex.build(catalog)
  assert.deepEqual(names(index, 'refund', 2), ['create_refund', 'send_email'])
  assert.equal(names(index, 'weather forecast')[0], 'getWeatherForecast')
  assert.equal(names(index, 'look up order 42')[0], 'get_order')
})

test('hits come best first with positive scores, at most limit of them', () => {
  const index = KeywordIndex.build(catalog)
  const hits = index.search('refund order', 10)
  assert.ok(hits.length >= 3)
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score)
  assert.ok(hits.every((h) => h.score > 0))
  assert.equal(index.search('refund order', 1).length, 1)
  assert.deepEqual(index.search('refund', 0), [])
})

test('field weights decide between fields', () => {
  const docs: ToolDocument[] = [
    { name: 'alpha', description: 'invoice' },
    { name: 'invoice', description: 'alpha' },
  ]
  const withWeights = (name: number, description: number): KeywordSettings => ({
    ...DEFAULT_KEYWORD_SETTINGS,
    fields: {
      ...DEFAULT_KEYWORD_SETTINGS.fields,
      name: { weight: name, b: 0.75 },
      description: { weight: description, b: 0.75 },
    },
  })
  assert.equal(names(KeywordIndex.build(docs, withWeights(3, 1)), 'invoice')[0], 'invoice')
  assert.equal(names(KeywordIndex.build(docs, withWeights(1, 3)), 'invoice')[0], 'alpha')
  assert.deepEqual(names(KeywordIndex.build(docs, withWeights(0, 1)), 'invoice'), ['alpha'])
})

test('parameter names, their descriptions and nested properties are indexed', () => {
  const docs: ToolDocument[] = [
    { name: 'a', parameters: { properties: { currency_code: { description: 'ISO code' } } } },
    {
      name: 'b',
      parameters: {
        properties: {
          options: { type: 'object', properties: { shipping_speed: { enum: ['overnight'] } } },
        },
      },
    },
    { name: 'c', description: 'unrelated' },
  ]
  const index = KeywordIndex.build(docs)
  assert.deepEqual(names(index, 'currency'), ['a'])
  assert.deepEqual(names(index, 'iso'), ['a'])
  assert.deepEqual(names(index, 'shipping speed'), ['b'])
  assert.deepEqual(names(index, 'overnight'), ['b'])
})

test('scores() gives every document its score for weighted terms', () => {
  const index = KeywordIndex.build(catalog)
  const scores = index.scores(new Map([['refund', 1]]))
  assert.equal(scores.length, catalog.length)
  assert.ok(scores[0]! > scores[2]! && scores[2]! > 0)
  assert.equal(scores[3], 0)
  const doubled = index.scores(new Map([['refund', 2]]))
  assert.ok(Math.abs(doubled[0]! - 2 * scores[0]!) < 1e-9)
  const ignored = index.scores(
    new Map([
      ['refund', 0],
      ['nothing', 1],
      ['order', Number.NaN],
    ]),
  )
  assert.ok(ignored.every((s) => s === 0))
  const top = index.search('refund', 1)[0]!
  assert.ok(Math.abs(top.score - scores[0]!) < 1e-4)
})

test('terms() and name() describe the catalog', () => {
  const index = KeywordIndex.build(catalog)
  assert.equal(index.size, 4)
  assert.equal(index.terms().get('refund'), 2)
  assert.equal(index.terms().get('order'), 2)
  assert.equal(index.terms().has('the'), false)
  assert.equal(index.name(1), 'get_order')
  assert.throws(() => index.name(4), RangeError)
})

test('empty queries, stop-word queries and unknown words find nothing', () => {
  const index = KeywordIndex.build(catalog)
  assert.deepEqual(index.search('', 5), [])
  assert.deepEqual(index.search('the of and to', 5), [])
  assert.deepEqual(index.search('zzzqqq', 5), [])
  assert.deepEqual(index.search('!!! ??? 💥', 5), [])
})

test('an empty catalog builds and answers nothing', () => {
  const index = KeywordIndex.build([])
  assert.equal(index.size, 0)
  assert.deepEqual(index.search('refund', 5), [])
})

test('hostile definitions: non-string fields, huge text, deep nesting', () => {
  let deep: Record<string, unknown> = { description: 'bottommost' }
  for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { level: deep } }
  const hostile = [
    { name: 42, description: { text: 'refund' }, parameters: 'refund' },
    { name: 'huge', description: `refund ${'lorem '.repeat(1_000_000)}` },
    { name: 'deep', parameters: deep },
    { name: 'arrays', parameters: { properties: { x: { enum: [1, null, 'refund', {}] } } } },
    {
      name: 'wide',
      parameters: {
        properties: Object.fromEntries(
          Array.from({ length: 50_000 }, (_, i) => [`p${i}`, { description: 'refund' }]),
        ),
      },
    },
    { name: 'plain_refund' },
  ] as unknown as ToolDocument[]
  const index = KeywordIndex.build(hostile)
  assert.equal(index.size, 6)
  assert.equal(index.name(0), '')
  const found = names(index, 'refund')
  for (const name of ['plain_refund', 'huge', 'arrays', 'wide']) assert.ok(found.includes(name))
  assert.deepEqual(names(index, 'bottommost'), [])
})

test('10,000 tools: builds, and finds the one named for the query', () => {
  const docs: ToolDocument[] = Array.from({ length: 10_000 }, (_, i) => ({
    name: `tool_${i}_${['fetch', 'store', 'send', 'list'][i % 4]}_record`,
    description: `Handles record ${i} in system ${i % 97}.`,
    parameters: { type: 'object', properties: { [`field_${i % 13}`]: { type: 'string' } } },
  }))
  docs[7777] = { name: 'reconcile_ledger', description: 'Reconcile the general ledger.' }
  const index = KeywordIndex.build(docs)
  assert.equal(index.size, 10_000)
  assert.equal(names(index, 'reconcile the ledger', 3)[0], 'reconcile_ledger')
  assert.equal(index.search('record', 10_000).length, 9_999)
})

test('equal scores keep catalog order', () => {
  const docs = Array.from({ length: 50 }, (_, i) => ({ name: `same_${i}`, description: 'same' }))
  const index = KeywordIndex.build(docs)
  assert.deepEqual(names(index, 'same', 3), ['same_0', 'same_1', 'same_2'])
  assert.equal(names(index, 'same', 50).at(-1), 'same_49')
})

test('interleaved schema text lands in its own field, capped per field', () => {
  const docs: ToolDocument[] = [
    {
      name: 'one',
      parameters: {
        properties: {
          alpha: { description: 'bravo', properties: { charlie: { description: 'delta' } } },
          echo: { description: 'foxtrot' },
        },
      },
    },
    // 3,000 words of parameter names: past the field cap, words after the 2,048th are not indexed.
    {
      name: 'two',
      parameters: {
        properties: Object.fromEntries([
          ...Array.from({ length: 1000 }, (_, i) => [`filler_word_${i}`, {}]),
          ['golf', { description: 'hotel' }],
        ]),
      },
    },
  ]
  const only = (field: 'parameterNames' | 'parameterDescriptions' | 'nested'): KeywordSettings => ({
    ...DEFAULT_KEYWORD_SETTINGS,
    fields: {
      name: { weight: 0, b: 0.75 },
      description: { weight: 0, b: 0.75 },
      parameterNames: { weight: 0, b: 0.75 },
      parameterDescriptions: { weight: 0, b: 0.75 },
      nested: { weight: 0, b: 0.75 },
      [field]: { weight: 1, b: 0.75 },
    },
  })
  const byNames = KeywordIndex.build(docs, only('parameterNames'))
  const byDescriptions = KeywordIndex.build(docs, only('parameterDescriptions'))
  const byNested = KeywordIndex.build(docs, only('nested'))
  assert.deepEqual(names(byNames, 'alpha echo'), ['one'])
  assert.deepEqual(names(byNames, 'bravo foxtrot charlie delta'), [])
  assert.deepEqual(names(byDescriptions, 'bravo foxtrot'), ['one'])
  assert.deepEqual(names(byDescriptions, 'alpha charlie delta'), [])
  assert.deepEqual(names(byNested, 'charlie delta'), ['one'])
  assert.deepEqual(names(byNested, 'alpha bravo echo foxtrot'), [])
  assert.deepEqual(names(byNames, 'golf'), [], 'past the cap')
  assert.deepEqual(names(byDescriptions, 'hotel'), ['two'], 'another field has room')
})

test('a word a name writes as two is found written as one, and only then', () => {
  const index = KeywordIndex.build([
    { name: 'runJavaScript', description: 'Run a snippet in a sandbox.' },
    { name: 'brew_coffee', description: 'Make a drink.' },
    { name: 'dec_counter', description: 'Count down.' },
    { name: 'open_ide', description: 'Open the editor.' },
  ])
  assert.deepEqual(names(index, 'execute some javascript'), ['runJavaScript'])
  assert.deepEqual(names(index, 'javascripts'), ['runJavaScript'])
  // "dec" and "ide" are both words of the catalog, but no name writes them side by side.
  assert.deepEqual(names(index, 'decide'), [])
  assert.deepEqual(
    index.queryTerms('javascript'),
    new Map([
      ['javascript', 1],
      ['java', 1],
      ['script', 1],
    ]),
  )
  // A word the catalog has is taken as it is.
  const known = KeywordIndex.build([
    { name: 'runJavaScript', description: 'Run a snippet.' },
    { name: 'lint', description: 'Lint javascript files.' },
  ])
  assert.deepEqual(known.queryTerms('javascript'), new Map([['javascript', 1]]))
})

test('a 10,000-character unknown word, or a compound repeated 900 times, answers by its words', () => {
  const index = KeywordIndex.build([{ name: 'runJavaScript' }, { name: 'get_order' }])
  assert.deepEqual(names(index, 'j'.repeat(10_000)), [])
  assert.deepEqual(names(index, `${'javascript '.repeat(900)}order`), [
    'runJavaScript',
    'get_order',
  ])
})
