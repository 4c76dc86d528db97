import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ToolSearch } from './catalog-cache.js'
import { catalogKey } from './catalog-key.js'
import type { Embedder, ToolDocument } from './types.js'

/** Counts what it is asked to embed; vectors are hashed letters, enough to rank something. */
class CountingEmbedder implements Embedder {
  readonly id = 'counting'
  texts = 0
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.texts += texts.length
    await new Promise((resolve) => setTimeout(resolve, 5))
    return texts.map((text) => {
      const vector = new Float32Array(16)
      for (let i = 0; i < text.length; i++) vector[text.charCodeAt(i) % 16]! += 1
      return vector
    })
  }
}

const tools = (prefix: string, count = 3): ToolDocument[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `${prefix}_${i}`,
    description: `Does ${prefix} thing number ${i}.`,
    parameters: { type: 'object', properties: { [`${prefix}_id`]: { type: 'string' } } },
  }))

test('the same definitions get the same catalog, from a fresh copy too', async () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder() })
  const first = search.catalog(tools('refund'))
  const again = search.catalog(JSON.parse(JSON.stringify(tools('refund'))))
  assert.equal(again, first)
  assert.equal(first.size, 3)
  assert.deepEqual(search.stats, {
    catalogs: 1,
    bytes: search.stats.bytes,
    hits: 1,
    misses: 1,
    evictions: 0,
  })
  const hits = await first.search('refund thing', { mode: 'keyword', limit: 2 })
  assert.equal(hits.length, 2)
  assert.ok(hits[0]!.name.startsWith('refund_'))
})

test('different catalogs never share an index', async () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder() })
  const a = search.catalog(tools('refund'))
  const changedDescription = tools('refund')
  changedDescription[1]!.description = 'Something else.'
  const changedParameters = tools('refund')
  changedParameters[2]!.parameters = { type: 'object', properties: {} }
  const reordered = tools('refund').reverse()
  const others = [changedDescription, changedParameters, reordered, tools('invoice')]
  const keys = new Set([a.key, ...others.map((t) => search.catalog(t).key)])
  assert.equal(keys.size, 5)
  const invoice = search.catalog(tools('invoice'))
  assert.deepEqual(await invoice.search('refund', { mode: 'keyword', limit: 5 }), [])
  // Parts that would join into the same text if concatenated naively stay apart.
  assert.notEqual(
    catalogKey([{ name: 'ab', description: 'c' }]),
    catalogKey([{ name: 'a', description: 'bc' }]),
  )
})

test('least recently used catalogs go first when over the count', () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder(), maxCatalogs: 2 })
  const a = search.catalog(tools('a'))
  search.catalog(tools('b'))
  assert.equal(search.catalog(tools('a')), a)
  search.catalog(tools('c'))
  assert.equal(search.stats.catalogs, 2)
  assert.equal(search.stats.evictions, 1)
  assert.equal(search.catalog(tools('a')), a, 'a was used last, so b went')
  const missesBefore = search.stats.misses
  search.catalog(tools('b'))
  assert.equal(search.stats.misses, missesBefore + 1, 'b was rebuilt')
})

test('catalogs go when over the byte budget, but the one just built stays', () => {
  const probe = new ToolSearch({ embedder: new CountingEmbedder() })
  probe.catalog(tools('a', 50))
  const one = probe.stats.bytes
  const search = new ToolSearch({
    embedder: new CountingEmbedder(),
    maxBytes: Math.floor(one * 2.5),
  })
  search.catalog(tools('a', 50))
  search.catalog(tools('b', 50))
  assert.equal(search.stats.catalogs, 2)
  search.catalog(tools('c', 50))
  assert.equal(search.stats.catalogs, 2)
  assert.ok(search.stats.bytes <= one * 2.5)
  const tiny = new ToolSearch({ embedder: new CountingEmbedder(), maxBytes: 1 })
  const alone = tiny.catalog(tools('a', 50))
  assert.equal(tiny.stats.catalogs, 1)
  assert.equal(tiny.catalog(tools('b')).size, 3)
  assert.equal(tiny.stats.catalogs, 1)
  assert.equal(alone.size, 50)
})

test('bounds must be positive integers', () => {
  assert.throws(() => new ToolSearch({ maxCatalogs: 0 }), RangeError)
  assert.throws(() => new ToolSearch({ maxBytes: -1 }), RangeError)
  assert.throws(() => new ToolSearch({ maxCatalogs: 1.5 }), RangeError)
})

test('semantic mode is built once per catalog, even for concurrent first searches', async () => {
  const catalog = tools('refund', 20)
  // What one search embeds, and what a second one adds, measure the catalog's and a query's share.
  const single = new CountingEmbedder()
  const one = new ToolSearch({ embedder: single }).catalog(catalog)
  await one.search('refund thing', { mode: 'semantic', limit: 3 })
  const afterOne = single.texts
  await one.search('another thing', { mode: 'semantic', limit: 3 })
  const perQuery = single.texts - afterOne
  const forCatalog = afterOne - perQuery

  const counting = new CountingEmbedder()
  const search = new ToolSearch({ embedder: counting })
  const queries = ['alpha one', 'beta two', 'gamma three', 'delta four', 'epsilon five']
  const results = await Promise.all(
    queries.map((q) => search.catalog(catalog).search(q, { mode: 'semantic', limit: 3 })),
  )
  assert.equal(results.length, 5)
  for (const hits of results) assert.ok(hits.length <= 3)
  assert.equal(counting.texts, forCatalog + queries.length * perQuery)
})

test('searches check their options and their signal', async () => {
  const catalog = new ToolSearch({ embedder: new CountingEmbedder() }).catalog(tools('a'))
  for (const limit of [0, -1, 1.5, Number.NaN]) {
    await assert.rejects(catalog.search('a', { mode: 'keyword', limit }), RangeError)
  }
  await assert.rejects(
    catalog.search('a', { mode: 'fuzzy' as 'keyword', limit: 1 }),
    /unknown search mode/,
  )
  const aborted = AbortSignal.abort(new Error('caller went away'))
  await assert.rejects(
    catalog.search('a', { mode: 'semantic', limit: 1, signal: aborted }),
    /caller went away/,
  )
  assert.deepEqual(await catalog.search('', { mode: 'keyword', limit: 5 }), [])
})

test('a catalog copies its tools: later changes to the array do not reach the index', async () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder() })
  const list = tools('a')
  const catalog = search.catalog(list)
  list.push({ name: 'late_refund' })
  assert.equal(catalog.size, 3)
  assert.deepEqual(await catalog.search('late refund', { mode: 'keyword', limit: 5 }), [])
  const grown = search.catalog(list)
  assert.notEqual(grown, catalog)
  assert.equal(grown.size, 4)
})
