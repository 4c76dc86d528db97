import assert from 'node:assert/strict'
import { PassThrough, Readable } from 'node:stream'
import { describe, it } from 'node:test'
import type { ToolHandler } from './handler.js'
import { readLines, serveJsonLines } from './jsonl.js'
import { failure, success } from './result.js'

const echo: ToolHandler = {
  name: 'echo',
  async run(input) {
    if (typeof input !== 'object' || input === null) return failure('input must be an object')
    return success(JSON.stringify(input))
  },
}

async function serve(lines: (string | Buffer)[], maxBytes?: number, handler = echo) {
  const output = new PassThrough()
  const chunks: Buffer[] = []
  output.on('data', (c: Buffer) => chunks.push(c))
  await serveJsonLines(handler, Readable.from(lines), output, maxBytes)
  return Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { id: unknown; output: string; is_error: boolean })
}

describe('JSON-lines process', () => {
  it('answers each call in order with the same id', async () => {
    const replies = await serve([
      '{"id": 1, "input": {"command": "a"}}\n{"id": "two", "input": {"command": "b"}}\n',
      '{"id": {"nested": [1]}, "input": {"command": "c"}}\r\n',
    ])
    assert.deepEqual(
      replies.map((r) => r.id),
      [1, 'two', { nested: [1] }],
    )
    assert.deepEqual(replies[0], { id: 1, output: '{"command":"a"}', is_error: false })
  })

  it('reassembles lines split across chunks, multi-byte characters included', async () => {
    const line = Buffer.from('{"id": 7, "input": {"text": "héllo ✓"}}\n')
    const replies = await serve([line.subarray(0, 25), line.subarray(25, 37), line.subarray(37)])
    assert.equal(replies[0]?.output, '{"text":"héllo ✓"}')
  })

  it('turns malformed lines into error lines and keeps going', async () => {
    const replies = await serve([
      'not json\n',
      '[1,2]\n',
      '"text"\n',
      'null\n',
      '{"id": 5}\n',
      '{"id": 6, "input": 3}\n',
      '\n   \n',
      '{"id": 8, "input": {}}',
    ])
    assert.equal(replies.length, 7)
    assert.match(replies[0]?.output ?? '', /^Error: line 1 is not valid JSON/)
    assert.equal(replies[0]?.id, null)
    assert.match(replies[1]?.output ?? '', /must be a JSON object/)
    assert.match(replies[4]?.output ?? '', /no "input" field/)
    assert.equal(replies[4]?.id, 5)
    assert.deepEqual(replies[5], {
      id: 6,
      output: 'Error: input must be an object',
      is_error: true,
    })
    assert.deepEqual(replies[6], { id: 8, output: '{}', is_error: false })
    assert.ok(replies.slice(0, 6).every((r) => r.is_error))
  })

  it('skips an oversized line without holding it and answers the next one', async () => {
    const huge = Buffer.alloc(5000, 'x')
    const replies = await serve([huge, huge, '\n{"id": 2, "input": {}}\n'], 1024)
    assert.equal(replies.length, 2)
    assert.match(replies[0]?.output ?? '', /line 1 is 10000 bytes, over the limit of 1024/)
    assert.equal(replies[1]?.id, 2)
  })

  it('reports a handler that fails as an error line', async () => {
    const failing: ToolHandler = { name: 'f', run: async () => failure('nope') }
    const replies = await serve(['{"id":1,"input":{}}\n'], undefined, failing)
    assert.deepEqual(replies[0], { id: 1, output: 'Error: nope', is_error: true })
  })

  it('readLines bounds memory for a stream with no newline', async () => {
    const chunks = Array.from({ length: 64 }, () => Buffer.alloc(1 << 20, 'y'))
    const lines = []
    for await (const line of readLines(Readable.from(chunks), 1 << 20)) lines.push(line)
    assert.deepEqual(lines, [{ number: 1, oversized: 64 << 20 }])
  })
})
