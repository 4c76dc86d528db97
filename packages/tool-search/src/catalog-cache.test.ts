import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ToolSearch } from './catalog-cache.js'
import { catalogFingerprint, catalogKey, KEY_SLICE_TOOLS } from './catalog-key.js'
import { type Embedder, EmbedderError, type ToolDocument } from './types.js'

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
    checks: 0,
    stale: 0,
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

/** A copy of `list` with one description edited in place, keeping its length. */
function sameLengthEdit(list: ToolDocument[], at: number, word: string): ToolDocument[] {
  const copy: ToolDocument[] = JSON.parse(JSON.stringify(list))
  const description = copy[at]!.description!
  copy[at]!.description = word + description.slice(word.length)
  return copy
}

const described = (count: number): ToolDocument[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}`,
    description: `zzzzzz does a thing for tool ${i}, nothing more to say here.`,
  }))

test('the fingerprint follows count, name and description lengths, and parameters', () => {
  const base = tools('refund', 5)
  const print = catalogFingerprint(base)
  assert.equal(catalogFingerprint(JSON.parse(JSON.stringify(base))), print)
  const renamed = tools('refund', 5)
  renamed[2]!.name = 'refund_10'
  const longer = tools('refund', 5)
  longer[4]!.description += '!'
  const noParameters = tools('refund', 5)
  delete noParameters[0]!.parameters
  const reordered = [...tools('refund', 2), ...tools('create_refund', 1), ...tools('refund', 2)]
  const changed = [
    renamed,
    longer,
    noParameters,
    reordered.reverse(),
    tools('refund', 4),
    tools('refund', 6),
  ]
  for (const other of changed) assert.notEqual(catalogFingerprint(other), print)
  // What it does not read, left to the background check: edits that keep every length.
  const sameLengthRename = tools('refund', 5)
  sameLengthRename[1]!.name = 'rebate_1'
  assert.equal(catalogFingerprint(sameLengthRename), print)
  assert.equal(
    catalogFingerprint(sameLengthEdit(described(3), 1, 'refund')),
    catalogFingerprint(described(3)),
  )
  // Hostile shapes cost nothing special and never throw.
  const odd = [{ name: 42, description: { long: true } }, { name: '' }] as unknown as ToolDocument[]
  assert.match(catalogFingerprint(odd), /^2\./)
  assert.match(catalogFingerprint([]), /^0\./)
})

test('the full key reads every slice of a large catalog', () => {
  const many = tools('bulk', KEY_SLICE_TOOLS + 40)
  const key = catalogKey(many)
  assert.equal(catalogKey(JSON.parse(JSON.stringify(many))), key)
  const late = JSON.parse(JSON.stringify(many)) as ToolDocument[]
  late[KEY_SLICE_TOOLS + 20]!.description = 'Changed in the second slice.'
  assert.notEqual(catalogKey(late), key)
  assert.notEqual(
    catalogKey(many.slice(0, KEY_SLICE_TOOLS)),
    catalogKey(many.slice(0, KEY_SLICE_TOOLS + 1)),
  )
})

test('within a scope a catalog is found by its fingerprint, and checked only once an interval', async () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder() })
  const first = search.catalog(tools('refund', 20), { scope: 'org_1/ws_1' })
  for (let i = 0; i < 5; i++) {
    const copy = JSON.parse(JSON.stringify(tools('refund', 20)))
    assert.equal(search.catalog(copy, { scope: 'org_1/ws_1' }), first)
  }
  await search.idle()
  assert.equal(search.stats.hits, 5)
  assert.equal(search.stats.misses, 1)
  assert.equal(search.stats.checks, 0, 'the default interval has not passed')
})

test('one scope never gets the index of a catalog another scope sent', async () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder(), checkIntervalMs: 0 })
  const honest = described(4)
  // Same fingerprint, different words: it would steer a shared lookup towards tool_2.
  const crafted = sameLengthEdit(honest, 2, 'refund')
  assert.equal(catalogFingerprint(crafted), catalogFingerprint(honest))
  const attacker = search.catalog(crafted, { scope: 'org_evil/ws' })
  const victim = search.catalog(honest, { scope: 'org_victim/ws' })
  assert.notEqual(victim, attacker)
  assert.equal(victim.key, catalogKey(honest))
  assert.deepEqual(await victim.search('refund', { mode: 'keyword', limit: 3 }), [])
  // The same definitions from two scopes share one index: that needs the full hash to match.
  assert.equal(search.catalog(described(4), { scope: 'org_other/ws' }), victim)
  assert.equal(search.stats.misses, 2)
})

test('a same-scope edit the fingerprint misses is corrected by the background check', async () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder(), checkIntervalMs: 0 })
  const scope = { scope: 'org_1/ws_1' }
  const before = search.catalog(described(4), scope)
  const edited = sameLengthEdit(described(4), 2, 'refund')
  // Served the previous ranking until the check has run: the staleness the docs bound.
  assert.equal(search.catalog(edited, scope), before)
  await search.idle()
  assert.deepEqual(
    { checks: search.stats.checks, stale: search.stats.stale },
    { checks: 1, stale: 1 },
  )
  const after = search.catalog(edited, scope)
  assert.notEqual(after, before)
  assert.equal(after.key, catalogKey(edited))
  assert.deepEqual(
    (await after.search('refund', { mode: 'keyword', limit: 3 })).map((h) => h.name),
    ['tool_2'],
  )
  // An unchanged catalog passes its check and stays.
  assert.equal(search.catalog(edited, scope), after)
  await search.idle()
  assert.equal(search.stats.stale, 1)
  assert.equal(search.catalog(edited, scope), after)
})

test('a same-length rename is found by its new name once the check has run', async () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder(), checkIntervalMs: 0 })
  const scope = { scope: 'org_1/ws_1' }
  const before = search.catalog(tools('refund', 5), scope)
  const renamed = tools('refund', 5)
  renamed[1]!.name = 'rebate_1'
  assert.equal(search.catalog(renamed, scope), before)
  await search.idle()
  const after = search.catalog(renamed, scope)
  assert.notEqual(after, before)
  const hits = await after.search('rebate', { mode: 'keyword', limit: 3 })
  assert.deepEqual(
    hits.map((h) => h.name),
    ['rebate_1'],
  )
})

test('a catalog that stops serialising fails its check and is looked up in full again', async () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder(), checkIntervalMs: 0 })
  let hostile = false
  const list: ToolDocument[] = [
    {
      name: 'shifty',
      description: 'Changes under the check.',
      parameters: {
        toJSON() {
          if (hostile) throw new Error('no serialising today')
          return { type: 'object' }
        },
      },
    },
  ]
  const scope = { scope: 'org_1/ws_1' }
  const first = search.catalog(list, scope)
  hostile = true
  assert.equal(search.catalog(list, scope), first)
  await search.idle()
  assert.equal(search.stats.stale, 1)
  assert.throws(() => search.catalog(list, scope), /no serialising today/)
})

test('fingerprints are bounded with the catalogs', () => {
  const search = new ToolSearch({ embedder: new CountingEmbedder(), maxCatalogs: 1 })
  for (let i = 0; i < 10; i++) search.catalog(tools('same'), { scope: `org_${i}/ws` })
  assert.equal(search.stats.misses, 1)
  assert.equal(search.stats.hits, 9)
  // Only the 4 most recent scopes are remembered: the first is looked up by full key again.
  const before = search.stats.hits
  search.catalog(tools('same'), { scope: 'org_0/ws' })
  assert.equal(search.stats.hits, before + 1)
  assert.throws(() => new ToolSearch({ checkIntervalMs: -1 }), RangeError)
})

/** Fails its first `failures` calls, then embeds like CountingEmbedder. */
class FlakyEmbedder extends CountingEmbedder {
  calls = 0
  constructor(private failures: number) {
    super()
  }
  override async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++
    if (this.failures > 0) {
      this.failures--
      throw new EmbedderError('embeddings server down')
    }
    return super.embed(texts)
  }
}

test('a failed semantic build is forgotten and retried by the next search', async () => {
  const flaky = new FlakyEmbedder(1)
  const catalog = new ToolSearch({ embedder: flaky }).catalog(tools('refund', 10))
  const failed = await Promise.allSettled([
    catalog.search('refund thing', { mode: 'semantic', limit: 3 }),
    catalog.search('refund other', { mode: 'semantic', limit: 3 }),
  ])
  assert.deepEqual(
    failed.map((r) => r.status),
    ['rejected', 'rejected'],
  )
  assert.equal(flaky.calls, 1, 'both waited for one build')
  const hits = await catalog.search('refund thing', { mode: 'semantic', limit: 3 })
  assert.equal(hits.length, 3)
  assert.ok(flaky.calls > 1, 'the build ran again')
  const callsAfter = flaky.calls
  await catalog.search('refund thing', { mode: 'semantic', limit: 3 })
  assert.equal(flaky.calls, callsAfter + 1, 'once built, only the query is embedded')
})
