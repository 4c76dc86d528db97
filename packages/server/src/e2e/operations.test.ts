import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from 'undici'
import { loadFixture } from '../testing/scripted-upstream.js'
import { envelopeOf, Harness } from './harness.js'

const MODELS = { 'Syntic Code': 'qwen2.5-coder-32b', 'Amara S1.2': 'llama3.1:8b' }
const SECRET_PROMPT = 'my secret project is called Bluebird'

describe('models, health, metrics, request ids and the request log', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'openai', models: MODELS })
  })
  after(() => h.close())

  it('GET /v1/models lists the Syntic model names, with a key', async () => {
    const list = await h.openai().models.list()
    assert.deepEqual(
      list.data.map((m) => [m.id, m.object, m.owned_by, typeof m.created]),
      [
        ['Syntic Code', 'model', 'syntic', 'number'],
        ['Amara S1.2', 'model', 'syntic', 'number'],
      ],
    )
    const raw = await h.fetch('/v1/models')
    assert.equal(((await raw.json()) as { object: string }).object, 'list')
    const anonymous = await fetch(`${h.url}/v1/models`)
    assert.equal(anonymous.status, 401)
    assert.equal((await envelopeOf(anonymous)).error.code, 'missing_api_key')
  })

  it('GET /healthz answers without a key', async () => {
    const response = await fetch(`${h.url}/healthz`)
    assert.equal(response.status, 200)
    assert.deepEqual(await response.json(), { status: 'ok' })
  })

  it('every response carries a distinct request id', async () => {
    h.upstream.enqueue(loadFixture('openai-text'), loadFixture('openai-text-stream'))
    const responses = [
      await h.fetch('/v1/chat/completions', { json: { model: 'Syntic Code', messages: 'x' } }),
      await h.fetch('/v1/chat/completions', {
        json: { model: 'Syntic Code', messages: [{ role: 'user', content: 'hi' }] },
      }),
      await h.fetch('/v1/chat/completions', {
        json: { model: 'Syntic Code', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      }),
      await h.fetch('/v1/messages', { json: { model: 'nope', max_tokens: 1, messages: [] } }),
      await h.fetch('/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      }),
      await h.fetch('/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{',
      }),
      await fetch(`${h.url}/v1/models`),
      await h.fetch('/v1/models'),
      await h.fetch('/v1/models', { method: 'PUT' }),
      await h.fetch('/nowhere'),
      await fetch(`${h.url}/healthz`),
      await fetch(`${h.url}/metrics`),
    ]
    const ids = responses.map((r) => r.headers.get('x-request-id'))
    for (const id of ids) assert.match(id ?? '', /^req_[0-9A-Za-z]{24}$/)
    assert.equal(new Set(ids).size, ids.length)
    for (const response of responses) {
      assert.equal(response.headers.get('request-id'), response.headers.get('x-request-id'))
      await response.arrayBuffer()
    }
  })

  it('a client-chosen request id is ignored', async () => {
    const response = await h.fetch('/healthz', { headers: { 'x-request-id': 'req_evil' } })
    assert.notEqual(response.headers.get('x-request-id'), 'req_evil')
  })

  it('logs one JSON line per request with timings and no secrets or content', async () => {
    h.upstream.enqueue(loadFixture('openai-text'))
    const ok = await h.fetch('/v1/chat/completions?debug=secret-token', {
      json: { model: 'Syntic Code', messages: [{ role: 'user', content: SECRET_PROMPT }] },
    })
    assert.equal(ok.status, 200)
    await ok.arrayBuffer()
    const line = await h.logLine(ok.headers.get('x-request-id')!)
    assert.deepEqual(Object.keys(line), [
      'ts',
      'id',
      'method',
      'path',
      'org',
      'workspace',
      'model',
      'status',
      'stream',
      'upstream_ms',
      'own_ms',
      'error_code',
    ])
    assert.equal(line.method, 'POST')
    assert.equal(line.path, '/v1/chat/completions')
    assert.equal(line.org, 'acme')
    assert.equal(line.workspace, 'research')
    assert.equal(line.model, 'Syntic Code')
    assert.equal(line.status, 200)
    assert.equal(line.stream, false)
    assert.equal(line.error_code, null)
    assert.ok(typeof line.upstream_ms === 'number' && line.upstream_ms >= 0)
    assert.ok(line.own_ms >= 0)
    assert.ok(!Number.isNaN(Date.parse(line.ts)))

    const denied = await h.fetch('/v1/chat/completions', {
      // Another last character, whatever the key ends with (a fixed 'x' matched 1 key in 62).
      headers: { authorization: `Bearer ${h.key.slice(0, -1)}${h.key.endsWith('x') ? 'y' : 'x'}` },
      json: { model: 'Syntic Code', messages: [{ role: 'user', content: SECRET_PROMPT }] },
    })
    const deniedLine = await h.logLine(denied.headers.get('x-request-id')!)
    assert.equal(deniedLine.status, 401)
    assert.equal(deniedLine.error_code, 'invalid_api_key')
    assert.equal(deniedLine.org, null)
    assert.equal(deniedLine.upstream_ms, null)

    const everything = JSON.stringify(h.log)
    assert.doesNotMatch(everything, /Bluebird|secret-token|sk_live_|sk-upstream/)
  })

  it('GET /metrics exposes requests, durations, in-flight requests and upstream errors', async () => {
    h.upstream.enqueue(loadFixture('openai-text'), loadFixture('anthropic-overloaded'))
    await h.openai().chat.completions.create({
      model: 'Syntic Code',
      messages: [{ role: 'user', content: 'hi' }],
    })
    await assert.rejects(
      h.openai().chat.completions.create({
        model: 'Syntic Code',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    )
    const response = await fetch(`${h.url}/metrics`)
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    const text = await response.text()
    assert.match(
      text,
      /syntic_http_requests_total\{route="\/v1\/chat\/completions",method="POST",status="200"\} [1-9]/,
    )
    assert.match(
      text,
      /syntic_http_requests_total\{route="\/v1\/chat\/completions",method="POST",status="502"\} 1/,
    )
    assert.match(text, /syntic_http_requests_total\{route="unmatched",method="GET",status="404"\}/)
    assert.match(
      text,
      /syntic_http_own_duration_seconds_bucket\{le="0\.001",route="\/v1\/chat\/completions"\}/,
    )
    assert.match(
      text,
      /syntic_upstream_duration_seconds_count\{route="\/v1\/chat\/completions"\} [1-9]/,
    )
    assert.match(text, /syntic_upstream_errors_total\{code="upstream_error"\} 1/)
    // This scrape itself is in flight.
    assert.match(text, /syntic_http_requests_in_flight [1-9]/)
  })
})

describe('shutdown', () => {
  it('lets a stream in flight finish and turns new requests away in the envelope', async () => {
    const h = await Harness.start({ format: 'openai' })
    // Pipelining puts the second request on the connection that is busy with the stream, which
    // stays open while the server drains.
    const client = new Client(h.url, { pipelining: 2 })
    try {
      h.upstream.enqueue({ ...loadFixture('openai-text-stream'), eventDelayMs: 20 })
      const streamed = await client.request({
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      })
      assert.equal(streamed.statusCode, 200)
      const closed = h.server.close()
      const refused = client.request({ path: '/healthz', method: 'GET' })
      const text = await streamed.body.text()
      assert.match(text, /data: \[DONE\]\n\n$/)
      const answer = await refused
      assert.equal(answer.statusCode, 503)
      assert.equal(answer.headers.connection, 'close')
      const body = (await answer.body.json()) as { error: { code: string }; request_id: string }
      assert.equal(body.error.code, 'server_shutting_down')
      assert.equal(body.request_id, answer.headers['x-request-id'])
      await closed
    } finally {
      await client.close()
      await h.close()
    }
  })
})
