// Checks that the gateway benchmark's parts measure what they claim: the fixture checks reject
// wrong answers, the upstream refuses what a provider would, wrong answers count as errors, the
// bare proxy relays bytes unchanged, and stopping a child stops its whole process group.
// Run with `node --test bench/support/`.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { request } from 'undici'
import { startBareProxy } from './bare-proxy.mjs'
import {
  ANSWER,
  COMPLETION_JSON,
  isExpectedCompletion,
  isExpectedStream,
  requestBody,
  STREAM_WITH_USAGE,
  STREAM_WITHOUT_USAGE,
  UPSTREAM_API_KEY,
} from './chat-fixture.mjs'
import { startChild } from './child-process.mjs'
import { loadTest } from './concurrent.mjs'
import { startFastUpstream } from './fast-upstream.mjs'
import { connect, timeSequential } from './sequential.mjs'

const auth = { authorization: `Bearer ${UPSTREAM_API_KEY}`, 'content-type': 'application/json' }

describe('chat fixture checks', () => {
  test('accept the fixed completion and streams', () => {
    assert.equal(isExpectedCompletion(COMPLETION_JSON), true)
    assert.equal(isExpectedStream(STREAM_WITH_USAGE.join('')), true)
    assert.equal(isExpectedStream(STREAM_WITHOUT_USAGE.join('')), true)
    assert.equal(STREAM_WITH_USAGE.length, 22)
  })

  test('reject a different answer, broken JSON and empty bodies', () => {
    assert.equal(isExpectedCompletion(COMPLETION_JSON.replace('April', 'March')), false)
    assert.equal(isExpectedCompletion(COMPLETION_JSON.slice(0, -1)), false)
    assert.equal(isExpectedCompletion(''), false)
    assert.equal(isExpectedCompletion('{"error":{"message":"no"}}'), false)
  })

  test('reject a stream that lost a chunk, its end, or goes on after it', () => {
    const events = STREAM_WITH_USAGE
    assert.equal(isExpectedStream([...events.slice(0, 3), ...events.slice(4)].join('')), false)
    assert.equal(isExpectedStream(events.slice(0, -1).join('')), false)
    assert.equal(isExpectedStream([...events, events[1]].join('')), false)
    assert.equal(
      isExpectedStream(events.join('').replace('"content":"The "', '"content":"The')),
      false,
    )
    assert.equal(isExpectedStream('data: {not json\n\ndata: [DONE]\n\n'), false)
    assert.equal(isExpectedStream(''), false)
  })

  test('the request asks for usage only when streaming', () => {
    assert.equal(JSON.parse(requestBody(true)).stream_options.include_usage, true)
    assert.equal(JSON.parse(requestBody(false)).stream_options, undefined)
  })
})

describe('fast upstream', () => {
  let server
  let origin
  before(async () => {
    server = await startFastUpstream()
    origin = `http://127.0.0.1:${server.address().port}`
  })
  after(() => new Promise((resolve) => server.close(resolve)))

  const post = (body, headers = auth, path = '/v1/chat/completions') =>
    request(`${origin}${path}`, { method: 'POST', headers, body }).then(async (r) => ({
      status: r.statusCode,
      type: r.headers['content-type'],
      text: await r.body.text(),
    }))

  test('answers the fixed completion and the fixed stream', async () => {
    const json = await post(requestBody(false))
    assert.deepEqual([json.status, json.text], [200, COMPLETION_JSON])
    const stream = await post(requestBody(true))
    assert.equal(stream.type, 'text/event-stream')
    assert.equal(stream.text, STREAM_WITH_USAGE.join(''))
    const noUsage = await post(JSON.stringify({ messages: [], stream: true }))
    assert.equal(noUsage.text, STREAM_WITHOUT_USAGE.join(''))
    assert.match(JSON.parse(json.text).choices[0].message.content, new RegExp(ANSWER.slice(0, 20)))
  })

  test('refuses a wrong key, a wrong route, malformed and oversized bodies', async () => {
    assert.equal((await post(requestBody(false), { authorization: 'Bearer nope' })).status, 401)
    assert.equal((await post(requestBody(false), auth, '/v1/embeddings')).status, 404)
    assert.equal((await post('{"messages": [', auth)).status, 400)
    assert.equal((await post('{"messages": "hi"}', auth)).status, 400)
    assert.equal((await post('null', auth)).status, 400)
    const huge = JSON.stringify({
      messages: [{ role: 'user', content: 'x'.repeat(2 * 1024 * 1024) }],
    })
    assert.equal((await post(huge, auth)).status, 413)
  })

  test('wrong answers count as errors, one at a time and under load', async () => {
    const good = { name: 'direct', origin, path: '/v1/chat/completions', headers: auth }
    const badKey = { ...good, headers: { ...auth, authorization: 'Bearer nope' } }
    const client = connect(good)
    try {
      const ok = await timeSequential(client, good, true, 20)
      assert.deepEqual([ok.latencies.length, ok.errors], [20, 0])
      const wrong = await timeSequential(client, badKey, false, 5)
      assert.deepEqual([wrong.latencies.length, wrong.errors], [0, 5])
      assert.match(wrong.firstError, /^status 401/)
    } finally {
      await client.close()
    }
    const options = { connections: 2, seconds: 1, warmupSeconds: 0 }
    const loaded = await loadTest(badKey, false, options)
    assert.equal(loaded.rps, 0)
    assert.ok(loaded.errors > 0)
    const fine = await loadTest(good, true, options)
    assert.deepEqual([fine.rps > 0, fine.errors], [true, 0])
  })

  test('the bare proxy relays the upstream byte for byte', async () => {
    const proxy = await startBareProxy(origin)
    try {
      const url = `http://127.0.0.1:${proxy.address().port}/v1/chat/completions`
      for (const stream of [false, true]) {
        const r = await request(url, { method: 'POST', headers: auth, body: requestBody(stream) })
        const text = await r.body.text()
        assert.equal(r.statusCode, 200)
        assert.equal(text, stream ? STREAM_WITH_USAGE.join('') : COMPLETION_JSON)
      }
      const refused = await request(url, { method: 'POST', body: requestBody(false) })
      await refused.body.dump()
      assert.equal(refused.statusCode, 401)
    } finally {
      await new Promise((resolve) => proxy.close(resolve))
    }
  })
})

/** Running, as opposed to gone or a zombie waiting for a reaper that may never come. */
function alive(pid) {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

test('stopping a child stops its process group, grandchildren included', async () => {
  const started = startChild('sh', ['-c', 'sleep 30 & echo $!; wait'])
  const grandchild = await new Promise((resolve) =>
    started.child.stdout.once('data', (text) => resolve(Number(text.trim()))),
  )
  assert.equal(alive(grandchild), true)
  await started.stop()
  await new Promise((resolve) => setTimeout(resolve, 100))
  assert.equal(alive(grandchild), false)
})
