import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defaultEmbedder } from '../embedders/default.js'
import { KeywordIndex } from '../keyword/keyword-index.js'
import type { ToolDocument } from '../types.js'
import { QueryExpansion } from './query-expansion.js'

const tool = (name: string, description: string): ToolDocument => ({ name, description })

const catalog: ToolDocument[] = [
  tool('refund_order', 'Refund the payment of an order.'),
  tool('get_weather', 'Current weather and forecast for a city.'),
  tool('send_email', 'Send an email message.'),
  tool('cancel_booking', 'Cancel a hotel booking.'),
  tool('list_cancelled', 'Bookings cancelled this week.'),
]

function expansion(docs: ToolDocument[] = catalog) {
  const keyword = KeywordIndex.build(docs)
  return { keyword, expansion: new QueryExpansion(keyword, defaultEmbedder().vectors()) }
}

test('a word the catalog lacks stands for its nearest catalog words, weighing less than 1', () => {
  const { keyword, expansion: query } = expansion()
  const terms = query.expand(keyword.queryTerms('reimburse')).terms
  assert.equal(terms.get('reimburse'), 1)
  const refund = terms.get('refund') ?? 0
  assert.ok(refund > 0 && refund < 1, JSON.stringify([...terms]))
  assert.ok([...terms.keys()].every((t) => t === 'reimburse' || keyword.terms().has(t)))
})

test('keyword evidence is full when a query word is in the catalog, partial on stand-ins alone', () => {
  const { keyword, expansion: query } = expansion()
  const alone = query.expand(keyword.queryTerms('reimburse')).strength
  assert.ok(alone > 0 && alone < 1, `${alone}`)
  assert.equal(query.expand(keyword.queryTerms('reimburse order')).strength, 1)
  assert.equal(query.expand(keyword.queryTerms('qzxvwplkjh')).strength, 0)
})

test('a word the catalog has keeps weight 1 and gains no neighbour; its other forms come lighter', () => {
  const { keyword, expansion: query } = expansion()
  assert.deepEqual(
    [...query.expand(keyword.queryTerms('weather email')).terms],
    [
      ['weather', 1],
      ['email', 1],
    ],
  )
  const cancel = query.expand(keyword.queryTerms('cancel')).terms
  assert.equal(cancel.get('cancel'), 1)
  const cancelled = cancel.get('cancelled') ?? 0
  assert.ok(cancelled > 0 && cancelled < 0.5)
})

test('numbers, codes, unknown strings and hostile queries add nothing and do not throw', () => {
  const { keyword, expansion: query } = expansion()
  for (const text of ['2024 v2 x509', 'qzxvwplkjh', '', '\u0000\uffff', 'ü'.repeat(10_000)]) {
    const terms = keyword.queryTerms(text)
    assert.deepEqual(query.expand(terms).terms, terms, text.slice(0, 20))
  }
  const long = keyword.queryTerms(Array.from({ length: 2000 }, (_, i) => `word${i} rain`).join(' '))
  assert.ok(query.expand(long).terms.size <= long.size + 5 * 4 + 10)
})

test('an empty catalog expands nothing', () => {
  const { keyword, expansion: query } = expansion([])
  const terms = keyword.queryTerms('reimburse the customer')
  assert.deepEqual(query.expand(terms), { terms, strength: 0 })
  assert.deepEqual(query.nearest(defaultEmbedder().vectors().lookup('refund')), [])
})
