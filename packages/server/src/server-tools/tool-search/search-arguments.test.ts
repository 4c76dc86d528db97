import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_QUERY_CHARS, parseSearchArguments } from './search-arguments.js'

test('a query is trimmed', () => {
  assert.deepEqual(parseSearchArguments('{"query":"  refund an order "}'), {
    ok: true,
    query: 'refund an order',
  })
})

test('malformed and hostile arguments are errors with text the model can act on', () => {
  for (const text of [
    '',
    '{',
    'null',
    '"refund"',
    '[]',
    '{"query":""}',
    '{"query":"   "}',
    '{"query":5}',
    '{"q":"x"}',
  ]) {
    const parsed = parseSearchArguments(text)
    assert.equal(parsed.ok, false, text)
    if (!parsed.ok) {
      assert.match(parsed.error, /^Error: /)
      assert.equal(parsed.query, '')
    }
  }
})

test('an oversized query is refused, its start kept for the record', () => {
  const parsed = parseSearchArguments(JSON.stringify({ query: 'y'.repeat(MAX_QUERY_CHARS * 50) }))
  assert.equal(parsed.ok, false)
  assert.equal(parsed.query.length, MAX_QUERY_CHARS)
})
