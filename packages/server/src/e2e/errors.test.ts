import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Anthropic, { APIError as AnthropicAPIError } from '@anthropic-ai/sdk'
import OpenAI, { APIError as OpenAIAPIError } from 'openai'
import { createApp } from '../app.js'
import { openStore } from '../store/open.js'
import { loadFixture } from '../testing/scripted-upstream.js'
import { envelopeOf, Harness } from './harness.js'

interface Expected {
  status: number
  type: string
  code: string
  param?: string | null
  message: RegExp
}

/** Runs `call` through the openai SDK and checks the APIError carries the envelope's fields. */
async function openaiFails(call: Promise<unknown>, expected: Expected): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof OpenAIAPIError, String(error))
    assert.equal(error.status, expected.status)
    assert.equal(error.code, expected.code)
    assert.equal(error.type, expected.type)
    if (expected.param !== undefined) assert.equal(error.param, expected.param)
    assert.match(error.message, expected.message)
    assert.match(error.requestID ?? '', /^req_/)
    return true
  })
}

/** The same through the Anthropic SDK, whose APIError holds the whole body as `.error`. */
async function anthropicFails(call: Promise<unknown>, expected: Expected): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof AnthropicAPIError, String(error))
    assert.equal(error.status, expected.status)
    const body = error.error as { type: string; error: Expected; request_id: string }
    assert.equal(body.type, 'error')
    assert.equal(body.error.code, expected.code)
    assert.equal(body.error.type, expected.type)
    if (expected.param !== undefined) assert.equal(body.error.param, expected.param)
    assert.match(body.error.message as unknown as string, expected.message)
    assert.match(error.message, expected.message)
    assert.equal(body.request_id, error.requestID)
    return true
  })
}

const USER = [{ role: 'user' as const, content: 'hi' }]

describe('errors through both SDKs', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'openai', models: { 'Syntic Code': 'qwen' } })
    h.upstream.setDefault(loadFixture('openai-text'))
  })
  after(() => h.close())

  const chat = (client: OpenAI, extra: Record<string, unknown> = {}, headers = {}) =>
    client.chat.completions.create({ model: 'Syntic Code', messages: USER, ...extra } as never, {
      headers,
    })
  const messages = (client: Anthropic, extra: Record<string, unknown> = {}, headers = {}) =>
    client.messages.create(
      { model: 'Syntic Code', max_tokens: 16, messages: USER, ...extra } as never,
      { headers },
    )

  it('a missing key is 401 missing_api_key', async () => {
    for (const path of ['/v1/chat/completions', '/v1/messages', '/v1/models']) {
      const response = await fetch(`${h.url}${path}`, {
        method: path === '/v1/models' ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        ...(path === '/v1/models' ? {} : { body: JSON.stringify({ model: 'Syntic Code' }) }),
      })
      assert.equal(response.status, 401)
      assert.equal(response.headers.get('www-authenticate'), 'Bearer')
      const body = await envelopeOf(response)
      assert.equal(body.error.type, 'authentication_error')
      assert.equal(body.error.code, 'missing_api_key')
      assert.match(body.error.message, /Authorization: Bearer/)
    }
    const expected = {
      status: 401,
      type: 'authentication_error',
      code: 'missing_api_key',
      message: /No API key/,
    }
    // The SDKs insist on a key of their own; a null header makes them send none.
    const keyless = new OpenAI({
      baseURL: `${h.url}/v1`,
      apiKey: 'unused',
      defaultHeaders: { authorization: null },
      maxRetries: 0,
    })
    await openaiFails(chat(keyless), expected)
    const anonymous = new Anthropic({
      baseURL: h.url,
      apiKey: null,
      defaultHeaders: { 'x-api-key': null, authorization: null },
      maxRetries: 0,
    })
    await anthropicFails(messages(anonymous), expected)
  })

  it('the key is checked before the body is read', { timeout: 10_000 }, async () => {
    const keyless = (path: string, init: RequestInit) => fetch(`${h.url}${path}`, init)
    for (const path of ['/v1/chat/completions', '/v1/messages']) {
      for (const type of ['application/json', 'text/plain']) {
        const response = await keyless(path, {
          method: 'POST',
          headers: { 'content-type': type },
          body: '{bad',
        })
        assert.equal(response.status, 401, `${path} ${type}`)
        assert.equal((await envelopeOf(response)).error.code, 'missing_api_key')
      }
    }
    const head = await keyless('/v1/models', { method: 'HEAD' })
    assert.equal(head.status, 401)

    // 20 MB declared, 64 KiB sent: the answer comes without the server waiting for the rest.
    const { hostname, port } = new URL(h.url)
    const socket = connect(Number(port), hostname)
    await once(socket, 'connect')
    socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${20 * 1024 * 1024}\r\n\r\n{"model":"${'x'.repeat(64 * 1024)}`,
    )
    let answer = ''
    for await (const chunk of socket) {
      answer += (chunk as Buffer).toString()
      if (answer.includes('}')) break
    }
    socket.destroy()
    assert.match(answer, /^HTTP\/1\.1 401 /)
    assert.match(answer, /"code":"missing_api_key"/)
  })

  it('a wrong key is 401 invalid_api_key', async () => {
    const expected = {
      status: 401,
      type: 'authentication_error',
      code: 'invalid_api_key',
      message: /not valid/,
    }
    const wrong = `sk_live_${'x'.repeat(43)}`
    await openaiFails(chat(h.openai(wrong)), expected)
    await anthropicFails(messages(h.anthropic(wrong)), expected)
    await openaiFails(chat(h.openai('garbage')), expected)
  })

  it('a revoked key stops working on the next request', async () => {
    const { key, record } = await h.store.createKey({ org: 'acme', workspace: 'temp' })
    const client = h.openai(key)
    const ok = await chat(client)
    assert.equal(ok.model, 'Syntic Code')
    await h.store.revokeKey(record.id)
    await openaiFails(chat(client), {
      status: 401,
      type: 'authentication_error',
      code: 'invalid_api_key',
      message: /revoked/,
    })
    await anthropicFails(messages(h.anthropic(key)), {
      status: 401,
      type: 'authentication_error',
      code: 'invalid_api_key',
      message: /revoked/,
    })
  })

  it('an invalid Syntic-Version is 400 invalid_syntic_version', async () => {
    const expected = {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_syntic_version',
      param: 'Syntic-Version',
      message: /YYYY-MM-DD/,
    }
    await openaiFails(chat(h.openai(), {}, { 'Syntic-Version': 'yesterday' }), expected)
    await anthropicFails(messages(h.anthropic(), {}, { 'Syntic-Version': '2026-02-30' }), expected)
    await openaiFails(chat(h.openai(), {}, { 'Syntic-Version': '1999-01-01' }), {
      ...expected,
      message: /before the first API version/,
    })
    const pinned = await chat(h.openai(), {}, { 'Syntic-Version': '2026-11-01' })
    assert.equal(pinned.model, 'Syntic Code')
  })

  it('tool problems carry the validator code and param', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ tools: [{ type: 'syntic_shel' }] }, 'unknown_tool_type', /syntic_shel/],
      [
        { tools: [{ type: 'syntic_shell' }, { type: 'syntic_shell' }] },
        'duplicate_tool_type',
        /syntic_shell/,
      ],
    ]
    for (const [extra, code, message] of cases) {
      const expected = { status: 400, type: 'invalid_request_error', code, message }
      await openaiFails(chat(h.openai(), extra), expected)
      await anthropicFails(messages(h.anthropic(), extra), expected)
    }
    await openaiFails(
      chat(h.openai(), {
        tools: [{ type: 'function', function: { name: 'syntic_run', parameters: {} } }],
      }),
      {
        status: 400,
        type: 'invalid_request_error',
        code: 'tool_name_conflict',
        message: /syntic_/,
      },
    )
    await anthropicFails(
      messages(h.anthropic(), {
        tools: [{ name: 'syntic_run', input_schema: { type: 'object' } }],
      }),
      {
        status: 400,
        type: 'invalid_request_error',
        code: 'tool_name_conflict',
        message: /syntic_/,
      },
    )
  })

  it('unknown fields and wrong types are 400 with the field as param', async () => {
    await openaiFails(chat(h.openai(), { temprature: 0.2 }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'unknown_parameter',
      param: 'temprature',
      message: /temprature/,
    })
    await anthropicFails(messages(h.anthropic(), { max_token: 5 }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'unknown_parameter',
      param: 'max_token',
      message: /max_token/,
    })
    await openaiFails(chat(h.openai(), { messages: 'hi' }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_request',
      param: 'messages',
      message: /messages/,
    })
    await anthropicFails(messages(h.anthropic(), { max_tokens: 'lots' }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_request',
      param: 'max_tokens',
      message: /max_tokens/,
    })
  })

  it('an unknown model is 404 model_not_found naming the available models', async () => {
    const expected = {
      status: 404,
      type: 'not_found_error',
      code: 'model_not_found',
      param: 'model',
      message: /gpt-4o.*does not exist.*Syntic Code/,
    }
    await openaiFails(chat(h.openai(), { model: 'gpt-4o' }), expected)
    await anthropicFails(messages(h.anthropic(), { model: 'gpt-4o' }), expected)
  })

  it('malformed, non-object and poisoned JSON is refused', async () => {
    const cases: [string, string][] = [
      ['{"model": "Syntic Code", "messages": [', 'invalid_json'],
      ["{'model': 1}", 'invalid_json'],
      ['{"__proto__": {"admin": true}, "model": "Syntic Code", "messages": []}', 'invalid_json'],
    ]
    for (const path of ['/v1/chat/completions', '/v1/messages']) {
      for (const [body, code] of cases) {
        const response = await h.fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
        assert.equal(response.status, 400, body)
        const envelope = await envelopeOf(response)
        assert.equal(envelope.error.code, code)
        assert.equal(envelope.error.type, 'invalid_request_error')
      }
      for (const body of ['[]', '"hello"', '42', 'null']) {
        const response = await h.fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
        assert.equal(response.status, 400, body)
        assert.equal((await envelopeOf(response)).error.code, 'invalid_request')
      }
      const empty = await h.fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '',
      })
      assert.equal(empty.status, 400)
      assert.equal((await envelopeOf(empty)).error.code, 'invalid_json')
    }
  })

  it('a body that is not JSON is 415 unsupported_media_type', async () => {
    const json = JSON.stringify({ model: 'Syntic Code', messages: USER })
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
    ]) {
      const response = await h.fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': type },
        body: json,
      })
      assert.equal(response.status, 415, type)
      const envelope = await envelopeOf(response)
      assert.equal(envelope.error.code, 'unsupported_media_type')
      assert.match(envelope.error.message, /application\/json/)
    }
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      const accepted = await h.fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': type },
        body: json,
      })
      assert.equal(accepted.status, 200, type)
      await accepted.arrayBuffer()
    }
    const none = await h.fetch('/v1/messages', { method: 'POST', body: new Blob([json]) })
    assert.equal(none.status, 415)
    const bare = await h.fetch('/v1/messages', { method: 'POST' })
    assert.equal(bare.status, 415)
    assert.equal((await envelopeOf(bare)).error.code, 'unsupported_media_type')
  })

  it('unknown routes are 404 not_found and wrong methods 405 method_not_allowed', async () => {
    const missing = await h.fetch('/v1/completions', { json: {} })
    assert.equal(missing.status, 404)
    assert.equal((await envelopeOf(missing)).error.code, 'not_found')
    const deep = await h.fetch(`/${'a/'.repeat(5000)}?q=${'x'.repeat(1000)}`)
    assert.equal(deep.status, 404)
    assert.ok((await envelopeOf(deep)).error.message.length < 500)
    const wrong = await h.fetch('/v1/chat/completions')
    assert.equal(wrong.status, 405)
    assert.equal(wrong.headers.get('allow'), 'POST')
    const envelope = await envelopeOf(wrong)
    assert.equal(envelope.error.code, 'method_not_allowed')
    assert.equal(envelope.error.type, 'invalid_request_error')
    const del = await h.fetch('/v1/models', { method: 'DELETE' })
    assert.equal(del.status, 405)
    assert.equal(del.headers.get('allow'), 'GET, HEAD')
    await openaiFails(h.openai().completions.create({ model: 'Syntic Code', prompt: 'x' }), {
      status: 404,
      type: 'not_found_error',
      code: 'not_found',
      message: /POST \/v1\/completions/,
    })
  })
})

/** Sends raw bytes on a new connection and returns everything the server answers. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes))
    let answer = ''
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString()
    })
    socket.on('close', () => resolve(answer))
    socket.on('error', reject)
  })
}

describe('requests that are not valid HTTP', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: null })
  })
  after(() => h.close())

  it('get the envelope too, then the connection closes', async () => {
    const garbage = await rawExchange(h.url, 'HELLO WORLD\r\n\r\n')
    assert.match(garbage, /^HTTP\/1\.1 400 Bad Request\r\n/)
    assert.match(garbage, /x-request-id: req_[0-9A-Za-z]{24}\r\n/)
    const body = JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4)) as {
      error: { code: string }
    }
    assert.equal(body.error.code, 'invalid_request')
    const huge = await rawExchange(
      h.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
    )
    assert.match(huge, /^HTTP\/1\.1 431 /)
    assert.match(huge, /"code":"request_too_large"/)
  })
})

describe('a client that drops mid-upload', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: null })
  })
  after(() => h.close())

  it('is a 499 in the request log, not an error', async () => {
    const skip = h.log.length
    const { hostname, port } = new URL(h.url)
    const socket = connect(Number(port), hostname)
    await once(socket, 'connect')
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{"',
    )
    // Time for the server to check the key and start reading the body.
    await new Promise((resolve) => setTimeout(resolve, 100))
    socket.destroy()
    while (h.log.length === skip) await new Promise((resolve) => setTimeout(resolve, 10))
    // The error handler, if it runs at all, runs in the same turn as the close: give it a few.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const line = h.log[skip]!
    assert.equal(line.status, 499)
    assert.equal(line.error_code, 'client_closed_request')
    assert.deepEqual(h.errors, [])
  })
})

describe('body limits', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'openai', bodyLimitBytes: 64 * 1024 })
    h.upstream.setDefault(loadFixture('openai-text'))
  })
  after(() => h.close())

  const huge = (bytes: number) => ({
    model: 'm',
    messages: [{ role: 'user', content: 'x'.repeat(bytes) }],
  })
  const expected = {
    status: 413,
    type: 'request_too_large',
    code: 'request_too_large',
    message: /limit of 65536 bytes/,
  }

  it('a body over the limit is 413 request_too_large through both SDKs', async () => {
    await openaiFails(h.openai().chat.completions.create(huge(200_000) as never), expected)
    await anthropicFails(
      h.anthropic().messages.create({ ...huge(200_000), max_tokens: 5 } as never),
      expected,
    )
    const ok = await h.openai().chat.completions.create(huge(30_000) as never)
    assert.equal(ok.object, 'chat.completion')
  })

  it('a chunked body with no length is cut off at the limit', async () => {
    const chunk = new TextEncoder().encode(
      `{"model":"m","messages":[{"role":"user","content":"${'x'.repeat(16 * 1024)}`,
    )
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1
        if (sent > 100) controller.close()
        else
          controller.enqueue(sent === 1 ? chunk : new TextEncoder().encode('y'.repeat(16 * 1024)))
      },
    })
    const response = await h.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit)
    assert.equal(response.status, 413)
    assert.equal((await envelopeOf(response)).error.code, 'request_too_large')
  })
})

describe('without an upstream', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: null })
  })
  after(() => h.close())

  it('model calls are 503 upstream_not_configured', async () => {
    const expected = {
      status: 503,
      type: 'api_error',
      code: 'upstream_not_configured',
      message: /SYNTIC_UPSTREAM_URL/,
    }
    await openaiFails(
      h.openai().chat.completions.create({ model: 'any', messages: USER }),
      expected,
    )
    await anthropicFails(
      h.anthropic().messages.create({ model: 'any', max_tokens: 5, messages: USER }),
      expected,
    )
  })

  it('an empty model map lists no models', async () => {
    const list = await h.openai().models.list()
    assert.deepEqual(list.data, [])
  })
})

describe('unexpected failures', () => {
  it('are 500 internal_error without a stack, logged with one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'syntic-e2e-broken-'))
    const store = await openStore({ home })
    const { key } = await store.createKey({ org: 'acme', workspace: 'default' })
    const errors: string[] = []
    const app = await createApp(
      { host: '127.0.0.1', port: 0, home, models: {}, bodyLimitBytes: 1024, requestLog: false },
      { store, errorLog: { write: (line: string) => errors.push(line) } },
    )
    try {
      await app.listen({ host: '127.0.0.1', port: 0 })
      const { port } = app.server.address() as { port: number }
      // A real store that has failed: its database is closed under the running server.
      await store.close()
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: USER }),
      })
      assert.equal(response.status, 500)
      const text = await response.text()
      assert.doesNotMatch(text, /at |\.js:|database/i)
      const body = JSON.parse(text) as { error: { code: string; type: string } }
      assert.equal(body.error.code, 'internal_error')
      assert.equal(body.error.type, 'api_error')
      assert.equal(errors.length, 1)
      const logged = JSON.parse(errors[0]!) as { id: string; stack: string; level: string }
      assert.equal(logged.level, 'error')
      assert.equal(logged.id, response.headers.get('x-request-id'))
      assert.match(logged.stack, /\.js:\d+/)

      const health = await fetch(`http://127.0.0.1:${port}/healthz`)
      assert.equal(health.status, 503)
      assert.equal(((await health.json()) as typeof body).error.code, 'store_unavailable')
    } finally {
      await app.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
