import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { EmbedderError } from '../types.js'
import { ConversionError, convertWordVectors } from './convert-word-vectors.js'
import { defaultEmbedder, WordVectorEmbedder } from './default.js'
import { WordVectors } from './word-vectors.js'

const dir = mkdtempSync(join(tmpdir(), 'word-vectors-'))
after(() => rmSync(dir, { recursive: true, force: true }))

// The source's shape: a words list, then vectors as [d values, L2 norm, frequency rank].
function fixture(entries: [string, number[], number][]): string {
  const vectors = Object.fromEntries(
    entries.map(([word, values, rank]) => [word, [...values, Math.hypot(...values), rank]]),
  )
  const json = JSON.stringify({
    precision: 8,
    dimensions: 3,
    words: entries.map(([word]) => word),
    vectors,
    unkVector: [0, 0, 0, 0, -1],
  })
  const path = join(dir, `source-${Math.random()}.json`)
  writeFileSync(path, json)
  return path
}

const tiny: [string, number[], number][] = [
  ['zebra', [0.1, 0.2, 0.3], 3],
  ['the', [1, 0, 0], 0],
  ['"', [0, 1, 0], 1],
  ['naïve', [0, 0, 1], 4],
  ['refund', [0.5, -0.5, 0.25], 2],
]

test('the conversion keeps searchable words in rank order and quantises within 1%', async () => {
  const out = join(dir, 'tiny.bin')
  const stats = await convertWordVectors({ source: fixture(tiny), out })
  assert.deepEqual(
    { words: stats.words, dims: stats.dims, skipped: stats.skipped },
    {
      words: 3,
      dims: 3,
      skipped: 2,
    },
  )
  const table = WordVectors.load(out)
  assert.equal(table.lookup('the'), 0)
  assert.equal(table.lookup('refund'), 1)
  assert.equal(table.lookup('zebra'), 2)
  assert.equal(table.lookup('naïve'), -1)
  assert.equal(table.lookup('"'), -1)
  assert.equal(table.lookup('zebr'), -1)
  assert.equal(table.lookup(''), -1)
  const refund = table.vector(1)
  for (const [i, expected] of [0.5, -0.5, 0.25].entries()) {
    assert.ok(Math.abs((refund[i] as number) - expected) < 0.005, `component ${i}`)
  }
})

test('maxWords keeps the most frequent words', async () => {
  const out = join(dir, 'pruned.bin')
  const stats = await convertWordVectors({ source: fixture(tiny), out, maxWords: 2 })
  assert.equal(stats.words, 2)
  const table = WordVectors.load(out)
  assert.equal(table.lookup('zebra'), -1)
  assert.equal(table.lookup('refund'), 1)
})

test('a source cut inside the vectors or without them is refused', async () => {
  const source = fixture(tiny)
  const text = readFileSync(source, 'utf8')
  const cut = join(dir, 'cut.json')
  writeFileSync(cut, text.slice(0, text.indexOf('zebra') + 20))
  await assert.rejects(
    convertWordVectors({ source: cut, out: join(dir, 'x.bin') }),
    ConversionError,
  )
  const none = join(dir, 'none.json')
  writeFileSync(none, '{"words":[]}')
  await assert.rejects(
    convertWordVectors({ source: none, out: join(dir, 'x.bin') }),
    /no "vectors" object/,
  )
  const garbage = join(dir, 'garbage.json')
  writeFileSync(garbage, `{"vectors":{"a":[1,2,"x"],${'9'.repeat(100_000)}`)
  await assert.rejects(
    convertWordVectors({ source: garbage, out: join(dir, 'x.bin') }),
    ConversionError,
  )
})

test('a missing, truncated or foreign vectors file fails naming the build command', async () => {
  const out = join(dir, 'damaged.bin')
  await convertWordVectors({ source: fixture(tiny), out })
  truncateSync(out, 40)
  assert.throws(
    () => WordVectors.load(out),
    (e: Error) => {
      return (
        e instanceof EmbedderError &&
        /truncated/.test(e.message) &&
        /build-word-vectors/.test(e.message)
      )
    },
  )
  writeFileSync(out, 'not vectors at all, but long enough to have a header')
  assert.throws(() => WordVectors.load(out), /not a word-vector file/)
  const missing = new WordVectorEmbedder(join(dir, 'nowhere.bin'))
  await assert.rejects(missing.embed(['refund']), /missing.*build-word-vectors\.mjs/)
})

test('the embedded default finds "refund" near "reimburse", far from "weather"', async () => {
  const [refund, reimburse, weather] = await defaultEmbedder().embed([
    'refund',
    'reimburse',
    'weather',
  ])
  const cosine = (a: Float32Array, b: Float32Array) => {
    let dot = 0
    for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number)
    return dot / Math.hypot(...a) / Math.hypot(...b)
  }
  assert.ok(cosine(refund!, reimburse!) > 0.5)
  assert.ok(cosine(refund!, weather!) < 0.2)
})

test('the embedded default embeds unknown words and hostile text as zero vectors', async () => {
  const [unknown, empty, long] = await defaultEmbedder().embed([
    'qzxv wplk',
    '',
    'refund '.repeat(2000),
  ])
  assert.ok(unknown!.every((x) => x === 0))
  assert.ok(empty!.every((x) => x === 0))
  assert.ok(long!.some((x) => x !== 0))
})
