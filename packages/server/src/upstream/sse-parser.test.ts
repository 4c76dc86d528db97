import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { fixtureNames, fixtureText } from '../testing/fixtures.js'
import type { SseEvent } from './port.js'
import { SseParser, SseSyntaxError } from './sse-parser.js'

function parse(chunks: string[], max = 1024): SseEvent[] {
  const parser = new SseParser(max)
  const events: SseEvent[] = []
  for (const chunk of chunks) parser.feed(chunk, events)
  parser.end(events)
  return events
}

describe('SSE parser', () => {
  it('reads named and unnamed events, multi-line data, comments, id and retry', () => {
    const text =
      ': keep-alive\n\nevent: content_block_delta\ndata: {"a":1}\n\ndata: line one\ndata:line two\nid: 7\nretry: 100\n\ndata\n\n'
    assert.deepEqual(parse([text]), [
      { event: 'content_block_delta', data: '{"a":1}' },
      { data: 'line one\nline two' },
      { data: '' },
    ])
  })

  it('drops an event type with no data, and a leading byte order mark', () => {
    assert.deepEqual(parse(['\uFEFFevent: ping\n\ndata: x\n\n']), [{ data: 'x' }])
  })

  it('accepts CRLF and lone CR line ends, even split between chunks', () => {
    const crlf = 'event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n'
    const expected = [{ event: 'a', data: '1' }, { data: '2' }]
    for (let cut = 0; cut <= crlf.length; cut++) {
      assert.deepEqual(parse([crlf.slice(0, cut), crlf.slice(cut)]), expected, `cut at ${cut}`)
    }
    assert.deepEqual(parse(['event: a\rdata: 1\r\rdata: 2\r\r']), expected)
    assert.deepEqual(parse(['data: 1\n\ndata: 2\n\r']), [{ data: '1' }, { data: '2' }])
  })

  it('gives the same events for every way of cutting each recorded stream', () => {
    for (const name of fixtureNames().filter((n) => n.endsWith('stream'))) {
      const text = fixtureText(name)
      const whole = parse([text], 1 << 20)
      assert.ok(whole.length > 5, name)
      assert.deepEqual(parse([...text], 1 << 20), whole, `${name} one character at a time`)
      for (let cut = 0; cut < text.length; cut += 97) {
        const pieces = [text.slice(0, cut), text.slice(cut, cut + 13), text.slice(cut + 13)]
        assert.deepEqual(parse(pieces, 1 << 20), whole, `${name} cut at ${cut}`)
      }
    }
  })

  it('rejects a line that is not an SSE field', () => {
    assert.throws(() => parse(['data: {}\n\n<html>Bad gateway</html>\n\n']), SseSyntaxError)
    assert.throws(() => parse(['{"choices":[]}\n']), /not an SSE field/)
  })

  it('rejects an over-long line, whole or arriving in pieces', () => {
    assert.throws(() => parse([`data: ${'x'.repeat(2000)}\n\n`]), /longer than 1024/)
    const pieces = Array.from({ length: 30 }, () => 'y'.repeat(100))
    assert.throws(() => parse(['data: ', ...pieces]), /longer than 1024/)
  })

  it('rejects an over-long event made of many short data lines', () => {
    const lines = `${'data: zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n'.repeat(40)}\n`
    assert.throws(() => parse([lines]), /longer than 1024/)
  })

  it('rejects a stream that ends inside an event, but not after a bare final [DONE]', () => {
    assert.throws(() => parse(['data: {"a":1}\n\ndata: {"b"']), /ended in the middle/)
    assert.throws(() => parse(['data: {"a":1}\n']), /ended in the middle/)
    // The bare [DONE] is still given as an event: it is what marks the stream as complete.
    const done = [{ data: '{"a":1}' }, { data: '[DONE]' }]
    assert.deepEqual(parse(['data: {"a":1}\n\ndata: [DONE]']), done)
    assert.deepEqual(parse(['data: {"a":1}\n\ndata: [DONE]\n']), done)
    assert.deepEqual(parse(['']), [])
  })

  it('quotes a bad line with the upstream key redacted, even where the quote cuts the line', () => {
    const key = 'sk-upstream-secret'
    for (const line of [`Bearer ${key}`, `${'x'.repeat(50)}Bearer ${key}`]) {
      const parser = new SseParser(1024, key)
      assert.throws(
        () => parser.feed(`${line}\n\n`, []),
        (error: Error) => {
          assert.match(error.message, /not an SSE field/)
          assert.ok(!error.message.includes('sk-'), error.message)
          return true
        },
      )
    }
  })
})
