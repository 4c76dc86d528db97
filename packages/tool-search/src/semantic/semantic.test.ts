import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { defaultEmbedder } from '../embedders/default.js'
import { OpenAICompatibleEmbedder } from '../embedders/openai-compatible.js'
import { KeywordIndex } from '../keyword/keyword-index.js'
import type { ToolDocument } from '../types.js'
import { buildSemanticRanker } from './index.js'

const tool = (name: string, description: string, params: string[] = []): ToolDocument => ({
  name,
  description,
  parameters: {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])),
  },
})

const catalog: ToolDocument[] = [
  tool('create_refund', 'Refund part or all of an order.', ['order_number', 'amount_pence']),
  tool('get_order', 'Look up an order by its number.', ['order_number']),
  tool('get_weather', 'Current weather and forecast for a city.', ['city']),
  tool('send_email', 'Send an email message to a recipient.', ['to', 'subject', 'body']),
  tool('translate_text', 'Translate text between languages.', ['text', 'target_language']),
  tool('book_flight', 'Book a flight between two airports.', ['origin', 'destination']),
  tool('play_music', 'Play a song or playlist.', ['track']),
  tool('calculate_tax', 'Compute sales tax for a purchase.', ['amount', 'region']),
]

async function ranker() {
  return buildSemanticRanker(catalog, KeywordIndex.build(catalog), defaultEmbedder())
}

test('"refund an order" and "reimburse the customer" both find create_refund first', async () => {
  const semantic = await ranker()
  for (const query of ['refund an order', 'reimburse the customer']) {
    const hits = await semantic.search(query, 3)
    assert.equal(hits[0]?.name, 'create_refund', `${query}: ${JSON.stringify(hits)}`)
  }
  // "buyer" stands for "purchase" and "sale" (calculate_tax); word vectors do not read "money
  // back" as a refund, so the refund is among the money tools, not necessarily first.
  const buyer = (await semantic.search('give the buyer their money back', 3)).map((h) => h.name)
  assert.deepEqual(buyer.sort(), ['calculate_tax', 'create_refund', 'get_order'])
  assert.equal((await semantic.search('is it going to rain in Paris', 3))[0]?.name, 'get_weather')
})

// A word every tool shares ("customer") against a synonym no tool uses ("reimburse"): the shared
// word must not drown the synonym's meaning.
const decoys: ToolDocument[] = [
  ...['add', 'delete', 'get', 'update', 'notify', 'merge', 'list', 'tag', 'rate', 'search'].map(
    (verb) => tool(`${verb}_customer`, `${verb} a customer record.`, ['customer_id']),
  ),
  tool('customer_balance', 'Balance owed by a customer.', ['customer_id']),
  tool('refund_order', 'Refund the payment of an order.', ['order_id', 'amount']),
  tool('request_refund', 'Open a refund request for a purchase.', ['order_id', 'reason']),
  tool('ship_order', 'Ship an order to its address.', ['order_id']),
  tool('get_weather', 'Current weather and forecast for a city.', ['city']),
  tool('cancel_subscription', 'Cancel a recurring subscription.', ['subscription_id']),
]

test('a synonym no tool uses beats a word every tool shares: "reimburse the customer"', async () => {
  const semantic = await buildSemanticRanker(decoys, KeywordIndex.build(decoys), defaultEmbedder())
  const top = (await semantic.search('reimburse the customer', 3)).map((hit) => hit.name)
  assert.ok(
    top.includes('refund_order') || top.includes('request_refund'),
    `no refund tool in ${top}`,
  )
  const refund = await semantic.search('refund an order', 2)
  assert.deepEqual(refund.map((hit) => hit.name).sort(), ['refund_order', 'request_refund'])
  assert.equal((await semantic.search('cancel my subscription', 1))[0]?.name, 'cancel_subscription')
  assert.equal((await semantic.search("what's the weather like", 1))[0]?.name, 'get_weather')
})

test('keyword mode misses the synonym that semantic mode finds', async () => {
  assert.deepEqual(KeywordIndex.build(catalog).search('reimburse the customer', 3), [])
})

test('hostile queries: empty, unknown words only, 10,000 characters, limits', async () => {
  const semantic = await ranker()
  assert.deepEqual(await semantic.search('', 5), [])
  assert.deepEqual(await semantic.search('   \u0000 ', 5), [])
  assert.deepEqual(await semantic.search('qzxvw plkjh', 5), [])
  const long = await semantic.search(`refund ${'x'.repeat(5000)} ${'order '.repeat(800)}`, 5)
  assert.equal(long[0]?.name, 'create_refund')
  assert.equal(long.length, 5)
  assert.deepEqual(await semantic.search('refund', 0), [])
  assert.equal((await semantic.search('refund', 1000)).length, catalog.length)
  for (const hit of await semantic.search('refund an order', 8))
    assert.ok(Number.isFinite(hit.score))
})

test('an empty catalog and tools without words rank nothing and do not throw', async () => {
  const odd: ToolDocument[] = [{ name: '' }, { name: 'x', description: 42 as unknown as string }]
  const semantic = await buildSemanticRanker(odd, KeywordIndex.build(odd), defaultEmbedder())
  assert.ok((await semantic.search('refund', 5)).length <= 2)
  const empty = await buildSemanticRanker([], KeywordIndex.build([]), defaultEmbedder())
  assert.deepEqual(await empty.search('refund', 5), [])
})

test('an aborted build or search rejects', async () => {
  const controller = new AbortController()
  controller.abort()
  await assert.rejects(
    buildSemanticRanker(catalog, KeywordIndex.build(catalog), defaultEmbedder(), controller.signal),
  )
  await assert.rejects((await ranker()).search('refund', 3, controller.signal))
})

// A real embeddings server computing deterministic vectors: one dimension per topic word.
const TOPICS = ['refund', 'weather', 'email', 'flight']
let server: Server
let url = ''
let embedCalls = 0
before(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      embedCalls++
      const input = (JSON.parse(body) as { input: string[] }).input
      const synonyms: Record<string, string> = { reimburse: 'refund', rain: 'weather' }
      const data = input.map((text, index) => {
        const words = text
          .toLowerCase()
          .split(/[^a-z]+/)
          .map((w) => synonyms[w] ?? w)
        return { index, embedding: TOPICS.map((t) => (words.includes(t) ? 1 : 0.01)) }
      })
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ data }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
after(() => server.close())

test('with an external embedder, tools are embedded once and each query once', async () => {
  const embedder = new OpenAICompatibleEmbedder({ url, model: 'test', batchSize: 3 })
  const before = embedCalls
  const semantic = await buildSemanticRanker(catalog, KeywordIndex.build(catalog), embedder)
  assert.equal(embedCalls - before, Math.ceil(catalog.length / 3))
  assert.equal((await semantic.search('reimburse the customer', 3))[0]?.name, 'create_refund')
  assert.equal((await semantic.search('will it rain', 3))[0]?.name, 'get_weather')
  assert.equal(embedCalls - before, Math.ceil(catalog.length / 3) + 2)
  assert.deepEqual(await semantic.search('', 3), [])
})

test('a search leaves nothing behind for the next: same query, same hits, fresh or not', async () => {
  const withCode = [...catalog, tool('zqxwv_lookup', 'Resolve a zqxwv code.', ['code'])]
  const semantic = await buildSemanticRanker(
    withCode,
    KeywordIndex.build(withCode),
    defaultEmbedder(),
  )
  const fresh = await buildSemanticRanker(withCode, KeywordIndex.build(withCode), defaultEmbedder())
  const first = await semantic.search('reimburse the customer', 5)
  await semantic.search('is it going to rain in Paris', 5)
  assert.deepEqual(await semantic.search('reimburse the customer', 5), first)
  // A query whose only word has no vector ranks by keyword alone, without the last cosines.
  assert.deepEqual(await semantic.search('zqxwv', 5), await fresh.search('zqxwv', 5))
  const [found, ...rest] = await semantic.search('zqxwv', 5)
  assert.equal(found?.name, 'zqxwv_lookup')
  assert.ok(rest.every((hit) => hit.score === 0))
})
