import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { UpstreamConfig } from '../config.js'
import { ApiError } from '../errors.js'
import { loadFixture, ScriptedUpstream } from '../testing/scripted-upstream.js'
import { createUpstream } from './create.js'
import { OpenAIUpstream } from './openai.js'
import type { SseEvent, Upstream, UpstreamResult } from './port.js'

const KEY = 'sk-test-4f1c9e77b2d84a0c'

let scripted: ScriptedUpstream
let upstream: Upstream

function config(overrides: Partial<UpstreamConfig> = {}): UpstreamConfig {
  return {
    url: scripted.openaiUrl,
    apiKey: KEY,
    format: 'openai',
    timeoutMs: 5000,
    connectTimeoutMs: 2000,
    ...overrides,
  }
}

function send(
  body: Record<string, unknown>,
  stream = false,
  signal = new AbortController().signal,
  client = upstream,
): Promise<UpstreamResult> {
  return client.send({ body, stream, signal })
}

async function json(result: Promise<UpstreamResult>): Promise<unknown> {
  const settled = await result
  assert.equal(settled.kind, 'json')
  return settled.kind === 'json' ? settled.body : undefined
}

async function events(result: Promise<UpstreamResult>): Promise<SseEvent[]> {
  const settled = await result
  assert.equal(settled.kind, 'stream')
  const received: SseEvent[] = []
  if (settled.kind === 'stream') for await (const event of settled.events) received.push(event)
  return received
}

/** Awaits a failure and checks it is the ApiError expected, never quoting the upstream key. */
async function failure(
  promise: Promise<unknown>,
  status: number,
  code: string,
  type = 'upstream_error',
): Promise<ApiError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error))
    assert.deepEqual([error.status, error.type, error.code], [status, type, code], error.message)
    assert.ok(!error.message.includes(KEY), error.message)
    return error
  }
  assert.fail('expected a failure')
}

function scriptedEvents(name: string): SseEvent[] {
  const fixture = loadFixture(name)
  assert.ok('sse' in fixture)
  return fixture.sse
}

const chat = { model: 'qwen', messages: [{ role: 'user', content: 'hi' }] }

describe('OpenAI upstream', () => {
  before(async () => {
    scripted = await ScriptedUpstream.start()
    upstream = createUpstream(config())
  })
  after(async () => {
    await upstream.close()
    await scripted.close()
  })

  it('is the client createUpstream picks for the openai format', () => {
    assert.ok(upstream instanceof OpenAIUpstream)
    assert.equal(upstream.format, 'openai')
  })

  it('posts the body to /chat/completions with the Bearer key and returns the JSON reply', async () => {
    for (const name of ['openai-text', 'openai-tool-calls']) {
      const fixture = loadFixture(name)
      scripted.enqueue(fixture)
      const before = scripted.requests.length
      assert.deepEqual(await json(send(chat)), 'json' in fixture ? fixture.json : undefined)
      const request = scripted.requests[before]!
      assert.equal(request.method, 'POST')
      assert.equal(request.path, '/v1/chat/completions')
      assert.equal(request.headers.authorization, `Bearer ${KEY}`)
      assert.equal(request.headers['content-type'], 'application/json')
      assert.deepEqual(request.body, chat)
    }
  })

  it('keeps the base path and query of the configured URL, and sends no key when none is set', async () => {
    const client = new OpenAIUpstream(
      config({ url: `${scripted.origin}/v1/?tenant=a`, apiKey: '' }),
    )
    scripted.enqueue({ json: { ok: true } })
    const before = scripted.requests.length
    assert.deepEqual(await json(send(chat, false, undefined, client)), { ok: true })
    assert.equal(scripted.requests[before]?.path, '/v1/chat/completions?tenant=a')
    assert.equal(scripted.requests[before]?.headers.authorization, undefined)
    await client.close()
  })

  it('streams every recorded stream event by event and stops at [DONE]', async () => {
    for (const name of ['openai-text-stream', 'openai-tool-calls-stream']) {
      const expected = scriptedEvents(name)
      scripted.enqueue(loadFixture(name))
      const before = scripted.requests.length
      const received = await events(send({ ...chat, stream: true }, true))
      assert.deepEqual(received, expected)
      assert.ok(!received.some((event) => event.data === '[DONE]'))
      assert.equal(scripted.requests[before]?.headers.accept, 'text/event-stream')
    }
    const args = scriptedEvents('openai-tool-calls-stream')
      .map((event) => JSON.parse(event.data).choices[0]?.delta?.tool_calls?.[0])
      .filter((call) => call?.index === 1)
      .map((call) => call.function.arguments)
      .join('')
    assert.deepEqual(JSON.parse(args), {
      command: 'run',
      cmd: 'python -m pytest tests/test_dates.py -q',
    })
  })

  it('ends at [DONE] at once, and reads what follows so the connection stays open', async () => {
    const sse = [{ data: '{"n":1}' }, { data: '[DONE]' }, { data: '{"late":true}' }]
    scripted.enqueue({ sse, eventDelayMs: 100 })
    const index = scripted.requests.length
    assert.deepEqual(await events(send(chat, true)), [{ data: '{"n":1}' }])
    await assert.rejects(scripted.waitForAbort(index, 400), /was not aborted/)
    assert.equal(scripted.requests[index]?.aborted, false)
  })

  it('makes the stream flag in the body agree with the request', async () => {
    scripted.enqueue({ sse: [{ data: '{"a":1}' }] }, { json: {} })
    const before = scripted.requests.length
    await events(send(chat, true))
    await json(send({ ...chat, stream: true }, false))
    const flags = scripted.requests
      .slice(before)
      .map((r) => (r.body as { stream?: boolean }).stream)
    assert.deepEqual(flags, [true, false])
  })

  it('reuses one keep-alive connection for sequential calls, streams included', async () => {
    scripted.enqueue({ json: {} })
    await json(send(chat))
    const opened = scripted.connections
    for (let i = 0; i < 10; i++) {
      scripted.enqueue({ json: { i } }, loadFixture('openai-text-stream'))
      await json(send(chat))
      await events(send(chat, true))
    }
    assert.equal(scripted.connections, opened)
  })

  it('runs many concurrent calls on one bounded pool', async () => {
    const client = new OpenAIUpstream(config())
    const opened = scripted.connections
    scripted.setDefault((request) => ({ json: { echo: request.body }, delayMs: 2 }))
    try {
      const replies = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          json(send({ ...chat, n: i }, false, undefined, client)),
        ),
      )
      replies.forEach((reply, i) => {
        assert.deepEqual(reply, { echo: { ...chat, n: i } })
      })
      const used = scripted.connections - opened
      assert.ok(used > 1 && used <= 128, `${used} connections`)
    } finally {
      scripted.setDefault(null)
      await client.close()
    }
  })

  it('maps the recorded error bodies', async () => {
    scripted.enqueue(loadFixture('openai-context-length'))
    let error = await failure(send(chat), 400, 'upstream_error', 'invalid_request_error')
    assert.match(error.message, /\(400\): This model's maximum context length is 128000 tokens/)

    scripted.enqueue(loadFixture('openai-invalid-key'))
    error = await failure(send(chat), 502, 'upstream_error')
    assert.match(error.message, /rejected this server's credentials \(401\)/)
    assert.doesNotMatch(error.message, /sk-proj/)

    const limited = loadFixture('openai-rate-limit')
    scripted.enqueue({ ...limited, headers: { 'retry-after': '3' } })
    error = await failure(send(chat), 429, 'upstream_rate_limited', 'rate_limit_error')
    assert.match(error.message, /retry after 3 s: Rate limit reached for gpt-4.1/)
  })

  it('maps 5xx to 502 with the upstream message, from JSON or plain text, cut short', async () => {
    scripted.enqueue({ status: 500, json: { error: { message: `engine died ${KEY}` } } })
    let error = await failure(send(chat), 502, 'upstream_error')
    assert.match(error.message, /answered 500: engine died \[redacted\]/)
    scripted.enqueue({ status: 503, raw: `upstream connect error ${'x'.repeat(100_000)}` })
    error = await failure(send(chat), 502, 'upstream_error')
    assert.match(error.message, /answered 503: upstream connect error x+…$/)
    assert.ok(error.message.length < 600)
    scripted.enqueue({ status: 500, raw: '' })
    error = await failure(send(chat, true), 502, 'upstream_error')
    assert.match(error.message, /no error message/)
  })

  it('rejects a reply that is not JSON', async () => {
    scripted.enqueue({ raw: '<html>gateway</html>', headers: { 'content-type': 'text/html' } })
    const error = await failure(send(chat), 502, 'upstream_error')
    assert.match(error.message, /not JSON: <html>gateway<\/html>/)
  })

  it('rejects an event stream sent to a request that asked for JSON', async () => {
    scripted.enqueue(loadFixture('openai-text-stream'))
    const error = await failure(send(chat), 502, 'upstream_error')
    assert.match(error.message, /not JSON: data: \{"id":"chatcmpl-/)
  })

  it('refuses a reply declared larger than the JSON limit without reading it', async () => {
    scripted.enqueue({ raw: `"${'x'.repeat(64 * 1024 * 1024 + 8)}"` })
    const error = await failure(send(chat), 502, 'upstream_error')
    assert.match(error.message, /larger than 67108864 bytes/)
  })

  it('rejects a stream request answered with JSON instead of an event stream', async () => {
    scripted.enqueue({ json: { error: { message: 'streaming is not supported' } } })
    const error = await failure(send(chat, true), 502, 'upstream_error')
    assert.match(error.message, /"application\/json" instead of an event stream: streaming is not/)
  })

  it('reports an unreachable upstream by origin only', async () => {
    const dead = await ScriptedUpstream.start()
    await dead.close()
    const url = new URL(dead.openaiUrl)
    url.username = 'admin'
    url.password = 'hunter2'
    const client = new OpenAIUpstream(config({ url: url.href }))
    const error = await failure(send(chat, false, undefined, client), 502, 'upstream_unreachable')
    assert.equal(
      error.message,
      `the upstream model server ${dead.origin} is unreachable (ECONNREFUSED)`,
    )
    await client.close()
  })

  it('reports a connection closed without an answer as unreachable', async () => {
    scripted.enqueue({ destroy: true })
    await failure(send(chat), 502, 'upstream_unreachable')
    scripted.enqueue({ destroy: true })
    await failure(send(chat, true), 502, 'upstream_unreachable')
  })

  it('times out an upstream that never answers, and hangs up on it', async () => {
    const client = new OpenAIUpstream(config({ timeoutMs: 150 }))
    scripted.enqueue({ hang: true })
    const index = scripted.requests.length
    const error = await failure(
      send(chat, false, undefined, client),
      504,
      'upstream_timeout',
      'timeout_error',
    )
    assert.match(error.message, /did not answer within 150 ms/)
    await scripted.waitForAbort(index)
    await client.close()
  })

  it('times out a stream that stalls after its first event', async () => {
    const client = new OpenAIUpstream(config({ timeoutMs: 150 }))
    scripted.enqueue({ sse: [{ data: '{"n":1}' }, { data: '{"n":2}' }], eventDelayMs: 3000 })
    const index = scripted.requests.length
    const result = await send(chat, true, undefined, client)
    assert.equal(result.kind, 'stream')
    if (result.kind !== 'stream') return
    const iterator = result.events[Symbol.asyncIterator]()
    assert.deepEqual(await iterator.next(), { done: false, value: { data: '{"n":1}' } })
    await failure(iterator.next(), 504, 'upstream_timeout', 'timeout_error')
    await scripted.waitForAbort(index)
    await client.close()
  })

  it('throws upstream_stream_interrupted when the stream breaks after 2 events', async () => {
    scripted.enqueue({ ...loadFixture('openai-text-stream'), breakAfter: 2 })
    const received: SseEvent[] = []
    const result = await send(chat, true)
    assert.equal(result.kind, 'stream')
    if (result.kind !== 'stream') return
    const error = await failure(
      (async () => {
        for await (const event of result.events) received.push(event)
      })(),
      502,
      'upstream_stream_interrupted',
    )
    assert.match(error.message, /connection failed/)
    assert.deepEqual(received, scriptedEvents('openai-text-stream').slice(0, 2))
  })

  it('throws upstream_stream_interrupted on malformed event streams', async () => {
    const sse = { 'content-type': 'text/event-stream' }
    const cases: [string, RegExp][] = [
      ['data: {"n":1}\n\n<html>502 Bad Gateway</html>\n\n', /not an SSE field: "<html>502/],
      ['data: {"n":1}\n\ndata: not json\n\n', /not a JSON object: "not json"/],
      ['data: {"n":1}\n\ndata: {"choices":[{"delta":', /ended in the middle of an event/],
      ['data: {"n":1}\n\n\uFFFD\u0000garbage\n\n', /not an SSE field/],
    ]
    for (const [raw, message] of cases) {
      scripted.enqueue({ raw, headers: sse })
      const received: SseEvent[] = []
      const result = await send(chat, true)
      assert.equal(result.kind, 'stream')
      if (result.kind !== 'stream') continue
      const error = await failure(
        (async () => {
          for await (const event of result.events) received.push(event)
        })(),
        502,
        'upstream_stream_interrupted',
      )
      assert.match(error.message, message)
      assert.deepEqual(received, [{ data: '{"n":1}' }])
    }
  })

  it('throws upstream_stream_interrupted when the body ends without data: [DONE]', async () => {
    const sse = { 'content-type': 'text/event-stream' }
    scripted.enqueue({ raw: 'data: {"n":1}\n\n', headers: sse })
    const received: SseEvent[] = []
    const result = await send(chat, true)
    assert.equal(result.kind, 'stream')
    if (result.kind !== 'stream') return
    const error = await failure(
      (async () => {
        for await (const event of result.events) received.push(event)
      })(),
      502,
      'upstream_stream_interrupted',
    )
    assert.match(error.message, /ended before data: \[DONE\]/)
    assert.deepEqual(received, [{ data: '{"n":1}' }])
    // A final [DONE] without its blank line still completes the stream.
    scripted.enqueue({ raw: 'data: {"n":1}\n\ndata: [DONE]', headers: sse })
    assert.deepEqual(await events(send(chat, true)), [{ data: '{"n":1}' }])
  })

  it('quotes event data it cannot read with the upstream key redacted, even at the cut', async () => {
    const sse = { 'content-type': 'text/event-stream' }
    // 55 characters before the key: a plain 60-character cut would show its first 5.
    for (const data of [`Bearer ${KEY}`, `${'x'.repeat(48)}Bearer ${KEY}`]) {
      scripted.enqueue({ raw: `data: ${data}\n\n`, headers: sse })
      const error = await failure(events(send(chat, true)), 502, 'upstream_stream_interrupted')
      assert.match(error.message, /not a JSON object: ".*Bearer \[red/)
      assert.ok(!error.message.includes(KEY.slice(0, 5)), error.message)
    }
  })

  it('throws on an over-long SSE line instead of buffering it', async () => {
    const long = { data: `{"content":"${'x'.repeat(5 * 1024 * 1024)}"}` }
    scripted.enqueue({ sse: [long, { data: '{}' }], eventDelayMs: 2000 })
    const index = scripted.requests.length
    const error = await failure(events(send(chat, true)), 502, 'upstream_stream_interrupted')
    assert.match(error.message, /longer than 4194304 characters/)
    await scripted.waitForAbort(index)
  })

  it('turns an error the upstream reports mid-stream into upstream_error', async () => {
    scripted.enqueue({
      sse: [
        { data: '{"id":"c","choices":[{"delta":{"content":"Hi"}}]}' },
        { data: '{"error": {"object": "error", "message": "decoding failed", "code": 500}}' },
      ],
    })
    const error = await failure(events(send(chat, true)), 502, 'upstream_error')
    assert.match(error.message, /reported an error mid-stream: decoding failed/)
  })

  it('stops a waiting request on abort and releases its connection', async () => {
    const controller = new AbortController()
    let seen!: () => void
    const arrived = new Promise<void>((resolve) => {
      seen = resolve
    })
    scripted.enqueue(() => {
      seen()
      return { hang: true }
    })
    const index = scripted.requests.length
    const pending = send(chat, false, controller.signal)
    await arrived
    controller.abort()
    await assert.rejects(pending, { name: 'AbortError' })
    await scripted.waitForAbort(index)
    assert.equal(scripted.requests[index]?.aborted, true)
  })

  it('stops a stream on abort mid-way and releases its connection', async () => {
    const controller = new AbortController()
    const sse = Array.from({ length: 200 }, (_, n) => ({ data: JSON.stringify({ n }) }))
    scripted.enqueue({ sse, eventDelayMs: 10 })
    const index = scripted.requests.length
    const result = await send(chat, true, controller.signal)
    assert.equal(result.kind, 'stream')
    if (result.kind !== 'stream') return
    const received: SseEvent[] = []
    await assert.rejects(
      (async () => {
        for await (const event of result.events) {
          received.push(event)
          if (received.length === 2) controller.abort()
        }
      })(),
      { name: 'AbortError' },
    )
    await scripted.waitForAbort(index)
    assert.deepEqual(received, sse.slice(0, 2))
  })

  it('releases the connection when the consumer stops reading early', async () => {
    const sse = Array.from({ length: 200 }, (_, n) => ({ data: JSON.stringify({ n }) }))
    scripted.enqueue({ sse, eventDelayMs: 10 })
    const index = scripted.requests.length
    const result = await send(chat, true)
    assert.equal(result.kind, 'stream')
    if (result.kind !== 'stream') return
    for await (const event of result.events) {
      assert.equal(event.data, '{"n":0}')
      break
    }
    await scripted.waitForAbort(index)
  })

  it('rejects at once when the signal is already aborted', async () => {
    const before = scripted.requests.length
    await assert.rejects(send(chat, false, AbortSignal.abort()), { name: 'AbortError' })
    assert.equal(scripted.requests.length, before)
  })
})
