import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { UpstreamConfig } from '../config.js'
import { ApiError } from '../errors.js'
import { loadFixture, ScriptedUpstream } from '../testing/scripted-upstream.js'
import { ANTHROPIC_VERSION, AnthropicUpstream } from './anthropic.js'
import { createUpstream } from './create.js'
import type { SseEvent, Upstream, UpstreamResult } from './port.js'

const KEY = 'sk-ant-api03-test-c2d9f1e07a'

let scripted: ScriptedUpstream
let upstream: Upstream

function config(overrides: Partial<UpstreamConfig> = {}): UpstreamConfig {
  return {
    url: scripted.anthropicUrl,
    apiKey: KEY,
    format: 'anthropic',
    timeoutMs: 5000,
    connectTimeoutMs: 2000,
    ...overrides,
  }
}

function send(
  body: Record<string, unknown>,
  stream = false,
  signal = new AbortController().signal,
) {
  return upstream.send({ body, stream, signal })
}

async function events(result: Promise<UpstreamResult>, seen: SseEvent[] = []): Promise<SseEvent[]> {
  const settled = await result
  assert.equal(settled.kind, 'stream')
  if (settled.kind === 'stream') for await (const event of settled.events) seen.push(event)
  return seen
}

async function failure(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error))
    assert.deepEqual([error.status, error.code], [status, code], error.message)
    assert.ok(!error.message.includes(KEY), error.message)
    return error
  }
  assert.fail('expected a failure')
}

const messages = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'Fix the failing test.' }],
}

describe('Anthropic upstream', () => {
  before(async () => {
    scripted = await ScriptedUpstream.start()
    upstream = createUpstream(config())
  })
  after(async () => {
    await upstream.close()
    await scripted.close()
  })

  it('is the client createUpstream picks for the anthropic format', () => {
    assert.ok(upstream instanceof AnthropicUpstream)
    assert.equal(upstream.format, 'anthropic')
  })

  it('posts to /v1/messages with x-api-key and anthropic-version, and returns the reply', async () => {
    for (const name of ['anthropic-text', 'anthropic-tool-use']) {
      const fixture = loadFixture(name)
      scripted.enqueue(fixture)
      const index = scripted.requests.length
      const result = await send(messages)
      assert.deepEqual(result, { kind: 'json', body: 'json' in fixture ? fixture.json : null })
      const request = scripted.requests[index]!
      assert.equal(request.path, '/v1/messages')
      assert.equal(request.headers['x-api-key'], KEY)
      assert.equal(request.headers['anthropic-version'], ANTHROPIC_VERSION)
      assert.equal(request.headers.authorization, undefined)
      assert.deepEqual(request.body, messages)
    }
  })

  it('streams named events, text then tool_use, keeping each event name', async () => {
    const fixture = loadFixture('anthropic-text-tool-use-stream')
    assert.ok('sse' in fixture)
    scripted.enqueue(fixture)
    const received = await events(send({ ...messages, stream: true }, true))
    assert.deepEqual(received, fixture.sse)
    assert.deepEqual(
      [...new Set(received.map((event) => event.event))],
      [
        'message_start',
        'content_block_start',
        'ping',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    )
    const input = received
      .map((event) => JSON.parse(event.data))
      .filter((data) => data.delta?.type === 'input_json_delta')
      .map((data) => data.delta.partial_json)
      .join('')
    assert.deepEqual(JSON.parse(input), {
      command: 'run',
      cmd: 'python -m pytest tests/test_dates.py -q',
    })
  })

  it('maps the recorded overloaded error (529) to 502 with its message', async () => {
    scripted.enqueue(loadFixture('anthropic-overloaded'))
    const error = await failure(send(messages), 502, 'upstream_error')
    assert.equal(error.message, 'the upstream model server answered 529: Overloaded')
    scripted.enqueue(loadFixture('anthropic-overloaded'))
    await failure(send(messages, true), 502, 'upstream_error')
  })

  it('maps a rejected key to a 502 that blames the server, not the caller', async () => {
    scripted.enqueue({
      status: 401,
      json: {
        type: 'error',
        error: { type: 'authentication_error', message: `invalid x-api-key ${KEY}` },
      },
    })
    const error = await failure(send(messages), 502, 'upstream_error')
    assert.match(error.message, /rejected this server's credentials \(401\)/)
  })

  it('turns an error event mid-stream into upstream_error, after the events before it', async () => {
    const start = loadFixture('anthropic-text-tool-use-stream')
    assert.ok('sse' in start)
    const overloaded = {
      event: 'error',
      data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    }
    scripted.enqueue({ sse: [...start.sse.slice(0, 3), overloaded] })
    const seen: SseEvent[] = []
    const error = await failure(events(send(messages, true), seen), 502, 'upstream_error')
    assert.match(error.message, /mid-stream: Overloaded/)
    assert.deepEqual(seen, start.sse.slice(0, 3))
  })

  it('throws upstream_stream_interrupted when the stream breaks after 2 events', async () => {
    const fixture = loadFixture('anthropic-text-tool-use-stream')
    assert.ok('sse' in fixture)
    scripted.enqueue({ ...fixture, breakAfter: 2 })
    const seen: SseEvent[] = []
    await failure(events(send(messages, true), seen), 502, 'upstream_stream_interrupted')
    assert.deepEqual(seen, fixture.sse.slice(0, 2))
  })

  it('throws upstream_stream_interrupted when the body ends before message_stop', async () => {
    const fixture = loadFixture('anthropic-text-tool-use-stream')
    assert.ok('sse' in fixture)
    assert.equal(fixture.sse.at(-1)?.event, 'message_stop')
    const cut = fixture.sse.slice(0, -1)
    scripted.enqueue({ sse: cut })
    const seen: SseEvent[] = []
    const error = await failure(
      events(send(messages, true), seen),
      502,
      'upstream_stream_interrupted',
    )
    assert.match(error.message, /ended before the message_stop event/)
    assert.deepEqual(seen, cut)
    // Servers that send no `event:` lines name message_stop in the data only: still complete.
    const unnamed = fixture.sse.map(({ data }) => ({ data }))
    scripted.enqueue({ sse: unnamed })
    assert.deepEqual(await events(send(messages, true)), unnamed)
  })

  it('stops a stream on abort and releases its connection', async () => {
    const controller = new AbortController()
    const fixture = loadFixture('anthropic-text-tool-use-stream')
    assert.ok('sse' in fixture)
    scripted.enqueue({ ...fixture, eventDelayMs: 20 })
    const index = scripted.requests.length
    const seen: SseEvent[] = []
    const reading = events(send(messages, true, controller.signal), seen)
    while (seen.length === 0) await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    await assert.rejects(reading, { name: 'AbortError' })
    await scripted.waitForAbort(index)
    assert.ok(seen.length < fixture.sse.length)
  })

  it('reports an unreachable upstream without its key', async () => {
    const dead = await ScriptedUpstream.start()
    await dead.close()
    const client = new AnthropicUpstream(config({ url: dead.anthropicUrl }))
    const error = await failure(
      client.send({ body: messages, stream: true, signal: new AbortController().signal }),
      502,
      'upstream_unreachable',
    )
    assert.match(error.message, new RegExp(`${dead.origin} is unreachable`))
    await client.close()
  })
})
