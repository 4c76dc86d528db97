import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { request } from 'undici'
import { fixtureNames, fixtureText } from './fixtures.js'
import { formatEvent, loadFixture, ScriptedUpstream } from './scripted-upstream.js'

let scripted: ScriptedUpstream

async function post(path: string, body: unknown = {}, signal?: AbortSignal) {
  const response = await request(`${scripted.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-trace': 't1' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  })
  return {
    status: response.statusCode,
    type: String(response.headers['content-type']),
    text: await response.body.text(),
  }
}

describe('scripted upstream', () => {
  before(async () => {
    scripted = await ScriptedUpstream.start()
  })
  after(() => scripted.close())

  it('serves the base URLs of both formats', () => {
    assert.match(scripted.origin, /^http:\/\/127\.0\.0\.1:\d+$/)
    assert.equal(scripted.openaiUrl, `${scripted.origin}/v1`)
    assert.equal(scripted.anthropicUrl, scripted.origin)
  })

  it('loads every fixture, with the status of error recordings', () => {
    const names = fixtureNames()
    for (const expected of [
      'openai-text',
      'openai-tool-calls',
      'openai-text-stream',
      'openai-tool-calls-stream',
      'openai-context-length',
      'anthropic-text',
      'anthropic-tool-use',
      'anthropic-text-tool-use-stream',
      'anthropic-overloaded',
    ]) {
      assert.ok(names.includes(expected), expected)
    }
    for (const name of names) {
      const fixture = loadFixture(name)
      if ('sse' in fixture) {
        assert.ok(fixture.sse.length > 5, name)
        for (const event of fixture.sse) assert.equal(typeof JSON.parse(event.data), 'object')
      } else {
        assert.ok('json' in fixture, name)
      }
    }
    assert.deepEqual(loadFixture('openai-context-length'), {
      status: 400,
      json: JSON.parse(fixtureText('openai-context-length')),
    })
    assert.equal((loadFixture('anthropic-overloaded') as { status: number }).status, 529)
    assert.throws(() => loadFixture('nope'), /no fixture named "nope"; there are anthropic-/)
  })

  it('replays a recorded stream byte for byte, adding [DONE] only on the OpenAI path', async () => {
    for (const [name, path] of [
      ['openai-text-stream', '/v1/chat/completions'],
      ['openai-tool-calls-stream', '/v1/chat/completions'],
      ['anthropic-text-tool-use-stream', '/v1/messages'],
    ] as const) {
      scripted.enqueue(loadFixture(name))
      const reply = await post(path)
      assert.equal(reply.status, 200)
      assert.match(reply.type, /^text\/event-stream/)
      assert.equal(reply.text, fixtureText(name), name)
    }
  })

  it('writes multi-line data as several data lines', () => {
    assert.equal(formatEvent({ data: 'a\nb' }), 'data: a\ndata: b\n\n')
    assert.equal(formatEvent({ event: 'ping', data: '{}' }), 'event: ping\ndata: {}\n\n')
  })

  it('records each request, parsing JSON bodies and keeping other text', async () => {
    scripted.enqueue({ json: { a: 1 }, status: 201, headers: { 'x-extra': 'yes' } }, { json: null })
    const index = scripted.requests.length
    assert.deepEqual(await post('/v1/messages?beta=1', { hello: 'world' }), {
      status: 201,
      type: 'application/json',
      text: '{"a":1}',
    })
    await post('/v1/chat/completions', 'not json {')
    const [first, second] = scripted.requests.slice(index)
    assert.equal(first?.method, 'POST')
    assert.equal(first?.path, '/v1/messages?beta=1')
    assert.equal(first?.headers['x-trace'], 't1')
    assert.deepEqual(first?.body, { hello: 'world' })
    assert.equal(first?.aborted, false)
    assert.equal(second?.body, 'not json {')
  })

  it('answers from the default once the queue is empty, and 500 when there is none', async () => {
    scripted.setDefault((recorded) => ({ json: { echo: recorded.body } }))
    assert.equal((await post('/v1/chat/completions', { n: 1 })).text, '{"echo":{"n":1}}')
    scripted.setDefault({ json: { fixed: true } })
    assert.equal((await post('/v1/chat/completions')).text, '{"fixed":true}')
    scripted.setDefault(null)
    const empty = await post('/v1/chat/completions')
    assert.equal(empty.status, 500)
    assert.match(empty.text, /the scripted upstream ran out of replies \(request #\d+, POST/)
  })

  it('answers 404 to unknown routes without using the script', async () => {
    scripted.enqueue({ json: { kept: true } })
    const missing = await post('/v1/embeddings')
    assert.equal(missing.status, 404)
    assert.match(missing.text, /no route for POST \/v1\/embeddings/)
    assert.equal((await post('/v1/messages')).text, '{"kept":true}')
  })

  it('sends raw bodies as given', async () => {
    scripted.enqueue({ raw: 'data: nope', status: 202, headers: { 'content-type': 'text/x' } })
    assert.deepEqual(await post('/v1/messages'), {
      status: 202,
      type: 'text/x',
      text: 'data: nope',
    })
  })

  it('breaks a stream after the given number of events', async () => {
    const sse = [{ data: '{"n":1}' }, { data: '{"n":2}' }, { data: '{"n":3}' }]
    scripted.enqueue({ sse, breakAfter: 2 })
    const response = await request(`${scripted.openaiUrl}/chat/completions`, { method: 'POST' })
    let text = ''
    await assert.rejects(async () => {
      for await (const chunk of response.body) text += chunk
    })
    assert.equal(text, 'data: {"n":1}\n\ndata: {"n":2}\n\n')
  })

  it('closes the connection without answering on destroy', async () => {
    scripted.enqueue({ destroy: true })
    const index = scripted.requests.length
    await assert.rejects(post('/v1/messages'), { code: 'UND_ERR_SOCKET' })
    assert.equal(scripted.requests[index]?.aborted, false)
  })

  it('notices a client that gives up on a hanging request', async () => {
    scripted.enqueue({ hang: true }, { json: {}, delayMs: 5 })
    const index = scripted.requests.length
    const controller = new AbortController()
    const pending = post('/v1/messages', {}, controller.signal)
    const aborted = scripted.waitForAbort(index)
    while (scripted.requests.length === index) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    await assert.rejects(pending, { name: 'AbortError' })
    await aborted
    assert.equal(scripted.requests[index]?.aborted, true)
    await post('/v1/messages')
    await assert.rejects(scripted.waitForAbort(index + 1, 50), /request #\d+ was not aborted/)
  })

  it('keeps nothing when recording is off', async () => {
    const lean = await ScriptedUpstream.start({ record: false })
    lean.setDefault({ json: { ok: 1 } })
    const response = await request(`${lean.openaiUrl}/chat/completions`, { method: 'POST' })
    assert.equal(await response.body.text(), '{"ok":1}')
    assert.equal(lean.requests.length, 0)
    assert.equal(lean.connections, 1)
    await lean.close()
  })
})
