import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseQueries, QueryFileError } from './queries.js'

test('parses one judged query per line, skipping blank lines', () => {
  const text =
    '{"id": "q1", "query": "refund", "gold": ["create_refund"]}\n\n{"id": 2, "query": "x", "gold": []}\n'
  assert.deepEqual(parseQueries(text), [
    { id: 'q1', query: 'refund', gold: ['create_refund'] },
    { id: 2, query: 'x', gold: [] },
  ])
  assert.deepEqual(parseQueries(''), [])
})

test('a malformed line is named by its number', () => {
  const good = '{"id": "q", "query": "q", "gold": ["a"]}'
  const cases: [string, RegExp][] = [
    [`${good}\n{not json`, /^line 2: not valid JSON$/],
    [`${good}\n${good}\n[1, 2]`, /^line 3: expected an object/],
    ['{"query": "q", "gold": []}', /^line 1: "id"/],
    ['{"id": null, "query": "q", "gold": []}', /^line 1: "id"/],
    ['{"id": "q", "query": 5, "gold": []}', /^line 1: "query"/],
    ['{"id": "q", "query": "q", "gold": "a"}', /^line 1: "gold"/],
    ['{"id": "q", "query": "q", "gold": [1]}', /^line 1: "gold"/],
    ['null', /^line 1: expected an object/],
  ]
  for (const [text, message] of cases) {
    assert.throws(
      () => parseQueries(text),
      (e: unknown) => e instanceof QueryFileError && message.test(e.message),
      text,
    )
  }
})
