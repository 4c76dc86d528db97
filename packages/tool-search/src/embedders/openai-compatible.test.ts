import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { EmbedderError } from '../types.js'
import { defaultEmbedder } from './default.js'
import { embedderFromEnv } from './from-env.js'
import { OpenAICompatibleEmbedder } from './openai-compatible.js'

interface Seen {
  path: string
  authorization: string | undefined
  body: { model: string; input: string[]; dimensions?: number }
}
const seen: Seen[] = []
let behaviour: (body: Seen['body'], res: ServerResponse) => void
let base = ''

// Deterministic vectors: [length of the text, its first char code, 1].
const vectorsFor = (input: string[]) =>
  input.map((text, index) => ({ index, embedding: [text.length, text.charCodeAt(0) || 0, 1] }))

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let raw = ''
  req.on('data', (chunk) => {
    raw += chunk
  })
  req.on('end', () => {
    const body = JSON.parse(raw) as Seen['body']
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization, body })
    behaviour(body, res)
  })
})
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
after(() => {
  server.closeAllConnections()
  server.close()
})

function answer(body: unknown, status = 200) {
  return (_: Seen['body'], res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
}

test('batches texts, keeps order, sends model, key and dimensions', async () => {
  seen.length = 0
  behaviour = (body, res) => {
    // Out of order on purpose: the index field decides.
    res.end(JSON.stringify({ data: vectorsFor(body.input).reverse() }))
  }
  const embedder = new OpenAICompatibleEmbedder({
    url: `${base}/v1/`,
    apiKey: 'sk-secret',
    model: 'm1',
    batchSize: 2,
    dimensions: 3,
  })
  const texts = ['a', 'bb', 'ccc', 'dddd', '']
  const vectors = await embedder.embed(texts)
  assert.deepEqual(
    vectors.map((v) => Array.from(v)),
    [
      [1, 97, 1],
      [2, 98, 1],
      [3, 99, 1],
      [4, 100, 1],
      [1, 32, 1],
    ],
  )
  assert.deepEqual(
    seen.map((s) => s.body.input.length),
    [2, 2, 1],
  )
  assert.ok(seen.every((s) => s.path === '/v1/embeddings'))
  assert.ok(seen.every((s) => s.authorization === 'Bearer sk-secret'))
  assert.ok(seen.every((s) => s.body.model === 'm1' && s.body.dimensions === 3))
  assert.match(embedder.id, /m1/)
})

const failures: [string, (body: Seen['body'], res: ServerResponse) => void, RegExp][] = [
  [
    'non-2xx with the key redacted',
    answer('{"error":"bad key sk-secret and sk-live_abcdefghijk"}', 401),
    /answered 401: \{"error":"bad key \[redacted\] and \[redacted\]"\}/,
  ],
  ['a body that is not JSON', answer('<html>oops</html>'), /not JSON: <html>oops/],
  ['no data array', answer({ object: 'list' }), /no "data" array/],
  [
    'too few vectors',
    answer({ data: [{ index: 0, embedding: [1, 2, 3] }] }),
    /1 vectors for 2 texts/,
  ],
  [
    'a wrong dimension',
    (body, res) =>
      res.end(
        JSON.stringify({
          data: body.input.map((_, index) => ({ index, embedding: index ? [1, 2] : [1, 2, 3] })),
        }),
      ),
    /2 dimensions, expected 3/,
  ],
  [
    'a non-numeric embedding',
    answer({
      data: [
        { index: 0, embedding: ['x'] },
        { index: 1, embedding: [1] },
      ],
    }),
    /malformed embedding/,
  ],
  [
    'a duplicated index',
    answer({
      data: [
        { index: 0, embedding: [1] },
        { index: 0, embedding: [1] },
      ],
    }),
    /index 0 twice/,
  ],
  [
    'an index out of range',
    answer({
      data: [
        { index: 5, embedding: [1] },
        { index: 0, embedding: [1] },
      ],
    }),
    /bad index: 5/,
  ],
  [
    'an oversized response',
    (_, res) => res.end(`{"data":[${'1,'.repeat(600_000)}1]}`),
    /larger than 1000000 bytes/,
  ],
]

for (const [name, handler, message] of failures) {
  test(`refuses ${name} with a clear EmbedderError`, async () => {
    behaviour = handler
    const embedder = new OpenAICompatibleEmbedder({
      url: base,
      apiKey: 'sk-secret',
      model: 'm',
      maxResponseBytes: 1_000_000,
    })
    await assert.rejects(embedder.embed(['one', 'two']), (error: Error) => {
      assert.ok(error instanceof EmbedderError, String(error))
      assert.match(error.message, message)
      assert.doesNotMatch(error.message, /sk-secret/)
      return true
    })
  })
}

test('a server that does not answer in time fails with a timeout', async () => {
  behaviour = () => {}
  const embedder = new OpenAICompatibleEmbedder({ url: base, model: 'm', timeoutMs: 100 })
  await assert.rejects(embedder.embed(['x']), /did not answer within 100 ms/)
})

test('an unreachable server fails naming the endpoint', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  const embedder = new OpenAICompatibleEmbedder({ url: `http://127.0.0.1:${port}`, model: 'm' })
  await assert.rejects(embedder.embed(['x']), /127\.0\.0\.1:\d+\/v1\/embeddings is unreachable/)
})

test("the caller's abort wins over the embedder's errors", async () => {
  behaviour = () => {}
  const controller = new AbortController()
  const embedder = new OpenAICompatibleEmbedder({ url: base, model: 'm' })
  const pending = embedder.embed(['x'], controller.signal)
  setImmediate(() => controller.abort(new Error('caller gave up')))
  await assert.rejects(pending, /caller gave up/)
})

test('bad settings are refused when constructed', () => {
  assert.throws(() => new OpenAICompatibleEmbedder({ url: 'not a url', model: 'm' }), EmbedderError)
  assert.throws(
    () => new OpenAICompatibleEmbedder({ url: 'file:///etc', model: 'm' }),
    /http or https/,
  )
  assert.throws(() => new OpenAICompatibleEmbedder({ url: base, model: '' }), /model is required/)
  assert.throws(
    () => new OpenAICompatibleEmbedder({ url: base, model: 'm', batchSize: 0 }),
    /batchSize/,
  )
})

test('embedderFromEnv picks the external embedder only when a URL is set', async () => {
  assert.equal(embedderFromEnv({}), defaultEmbedder())
  assert.equal(embedderFromEnv({ SYNTIC_EMBEDDINGS_URL: ' ' }), defaultEmbedder())
  behaviour = (body, res) => res.end(JSON.stringify({ data: vectorsFor(body.input) }))
  seen.length = 0
  const external = embedderFromEnv({
    SYNTIC_EMBEDDINGS_URL: base,
    SYNTIC_EMBEDDINGS_MODEL: 'e5',
    SYNTIC_EMBEDDINGS_API_KEY: 'k1',
  })
  assert.ok(external instanceof OpenAICompatibleEmbedder)
  await external.embed(['hello'])
  const request = seen.find((s) => s.body.input[0] === 'hello')
  assert.equal(request?.body.model, 'e5')
  assert.equal(request?.authorization, 'Bearer k1')
  assert.throws(() => embedderFromEnv({ SYNTIC_EMBEDDINGS_URL: base }), /model is required/)
})
