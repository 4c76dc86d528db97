import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ndcgAt, recallAt, summarize } from './metrics.js'

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} != ${expected}`)

test('recall@k counts the gold tools in the first k results', () => {
  const results = ['a', 'x', 'b', 'y', 'z', 'c']
  close(recallAt(results, ['a'], 1), 1)
  close(recallAt(results, ['b'], 1), 0)
  close(recallAt(results, ['a', 'b'], 1), 0.5)
  close(recallAt(results, ['a', 'b', 'c'], 5), 2 / 3)
  close(recallAt(results, ['a', 'b', 'c'], 10), 1)
  close(recallAt(['a', 'a'], ['a', 'b'], 2), 0.5)
  close(recallAt([], ['a'], 5), 0)
  close(recallAt(['a'], [], 5), 0)
})

test('nDCG@10 discounts by log2 of the rank, against the ideal order', () => {
  close(ndcgAt(['a', 'x'], ['a'], 10), 1)
  // Rank 2: 1/log2(3).
  close(ndcgAt(['x', 'a'], ['a'], 10), 1 / Math.log2(3))
  // Gold at ranks 1 and 3 of two gold tools: (1 + 1/2) / (1 + 1/log2(3)).
  close(ndcgAt(['a', 'x', 'b'], ['a', 'b'], 10), (1 + 0.5) / (1 + 1 / Math.log2(3)))
  // Beyond k earns nothing; a repeated name earns once.
  close(ndcgAt(['x', 'y', 'a'], ['a'], 2), 0)
  close(ndcgAt(['a', 'a'], ['a', 'b'], 10), 1 / (1 + 1 / Math.log2(3)))
  close(ndcgAt([], ['a'], 10), 0)
})

test('summarize averages over queries', () => {
  const report = summarize([
    { results: ['a', 'b'], gold: ['a'] },
    { results: ['x', 'b'], gold: ['b'] },
  ])
  assert.equal(report.queries, 2)
  assert.equal(report['recall@1'], 0.5)
  assert.equal(report['recall@5'], 1)
  assert.equal(report['recall@10'], 1)
  assert.equal(report['ndcg@10'], Math.round(((1 + 1 / Math.log2(3)) / 2) * 10_000) / 10_000)
  assert.deepEqual(summarize([]), {
    queries: 0,
    'recall@1': 0,
    'recall@5': 0,
    'recall@10': 0,
    'ndcg@10': 0,
  })
})
