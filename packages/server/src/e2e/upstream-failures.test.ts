import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { APIError as AnthropicAPIError } from '@anthropic-ai/sdk'
import { APIError as OpenAIAPIError } from 'openai'
import { formatEvent, loadFixture, type ScriptedReply } from '../testing/scripted-upstream.js'
import { type Envelope, envelopeOf, Harness } from './harness.js'

const USER = [{ role: 'user' as const, content: 'hi' }]
const SSE_HEADERS = { 'content-type': 'text/event-stream' }
const UPSTREAM_KEY = 'sk-upstream-secret'

function streamRequest(path: string): Record<string, unknown> {
  const body = { model: 'm', stream: true, messages: USER }
  return path === '/v1/messages' ? { ...body, max_tokens: 5 } : body
}

/** The raw event stream a client receives from a 200 streaming response. */
async function rawStream(h: Harness, path: string): Promise<string> {
  const response = await h.fetch(path, { json: streamRequest(path) })
  assert.equal(response.status, 200)
  return response.text()
}

/** The envelope in the stream's last event: `data: {...}` or `event: error` / `data: {...}`. */
function lastError(text: string): Envelope {
  const last =
    text
      .split('\n\n')
      .filter((event) => event !== '')
      .at(-1) ?? ''
  const data = last.split('\n').find((line) => line.startsWith('data: ')) ?? 'data: null'
  const envelope = JSON.parse(data.slice(6)) as Envelope | null
  assert.ok(envelope?.error, `the stream does not end with an error event: ${last}`)
  return envelope
}

/** The first request log line written after the first `skip` lines that matches. */
async function nextLine(h: Harness, skip: number, path: string) {
  for (let i = 0; i < 200; i++) {
    const line = h.log.slice(skip).find((l) => l.path === path)
    if (line) return line
    await sleep(10)
  }
  throw new Error(`no request log line for ${path}`)
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function streamOf(name: string): Extract<ScriptedReply, { sse: unknown }> {
  const reply = loadFixture(name)
  if (!('sse' in reply)) throw new Error(`${name} is not a stream fixture`)
  return reply
}

function openaiError(error: unknown): OpenAIAPIError {
  assert.ok(error instanceof OpenAIAPIError, String(error))
  return error
}

function anthropicCode(error: unknown): string {
  assert.ok(error instanceof AnthropicAPIError, String(error))
  return (error.error as { error: { code: string } }).error.code
}

describe('upstream failures', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'openai' })
  })
  after(() => h.close())

  it('an upstream 4xx keeps its status and quotes its message', async () => {
    h.upstream.enqueue(loadFixture('openai-context-length'), loadFixture('openai-context-length'))
    await assert.rejects(
      h.openai().chat.completions.create({ model: 'm', messages: USER }),
      (error: unknown) => {
        const e = openaiError(error)
        assert.equal(e.status, 400)
        assert.equal(e.code, 'upstream_error')
        assert.match(e.message, /maximum context length is 128000 tokens/)
        return true
      },
    )
    await assert.rejects(
      h.anthropic().messages.create({ model: 'm', max_tokens: 5, messages: USER }),
      (error: unknown) => {
        assert.equal(anthropicCode(error), 'upstream_error')
        assert.match((error as Error).message, /maximum context length/)
        return true
      },
    )
  })

  it('an upstream 5xx is 502 with its message, and 429 stays 429', async () => {
    h.upstream.enqueue(loadFixture('anthropic-overloaded'), loadFixture('openai-rate-limit'))
    await assert.rejects(
      h.openai().chat.completions.create({ model: 'm', messages: USER }),
      (error: unknown) => {
        const e = openaiError(error)
        assert.equal(e.status, 502)
        assert.equal(e.code, 'upstream_error')
        assert.match(e.message, /Overloaded/)
        return true
      },
    )
    await assert.rejects(
      h.openai().chat.completions.create({ model: 'm', messages: USER }),
      (error: unknown) => {
        const e = openaiError(error)
        assert.equal(e.status, 429)
        assert.equal(e.code, 'upstream_rate_limited')
        return true
      },
    )
  })

  it('a reply that is not a JSON object is 502 upstream_error, translated or not', async () => {
    h.upstream.enqueue({ json: [1, 2] }, { json: 'hello' }, { raw: '<html>oops</html>' })
    const chat = await h.fetch('/v1/chat/completions', { json: { model: 'm', messages: USER } })
    assert.equal(chat.status, 502)
    assert.equal((await envelopeOf(chat)).error.code, 'upstream_error')
    const messages = await h.fetch('/v1/messages', {
      json: { model: 'm', max_tokens: 5, messages: USER },
    })
    assert.equal(messages.status, 502)
    assert.equal((await envelopeOf(messages)).error.code, 'upstream_error')
    const html = await h.fetch('/v1/chat/completions', { json: { model: 'm', messages: USER } })
    assert.equal(html.status, 502)
    assert.match((await envelopeOf(html)).error.message, /not JSON/)
    h.upstream.enqueue({ sse: [{ data: '{not json}' }] })
    const broken = await h.fetch('/v1/messages', {
      json: { model: 'm', max_tokens: 5, stream: true, messages: USER },
    })
    assert.equal(broken.status, 502)
    assert.equal((await envelopeOf(broken)).error.code, 'upstream_stream_interrupted')
  })

  it('an error before the first event of a stream is an ordinary error response', async () => {
    h.upstream.enqueue(loadFixture('openai-context-length'))
    const response = await h.fetch('/v1/chat/completions', {
      json: { model: 'm', stream: true, messages: USER },
    })
    assert.equal(response.status, 400)
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
    assert.equal((await envelopeOf(response)).error.code, 'upstream_error')
  })

  it('a stream broken midway ends with an error event both SDKs raise', async () => {
    h.upstream.enqueue({ ...streamOf('openai-text-stream'), breakAfter: 4 })
    const stream = await h.openai().chat.completions.create({
      model: 'm',
      messages: USER,
      stream: true,
    })
    let text = ''
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
      })(),
      (error: unknown) => {
        const e = openaiError(error)
        assert.equal(e.code, 'upstream_stream_interrupted')
        assert.match(e.message, /broke off/)
        return true
      },
    )
    assert.equal(text, 'The bug is')

    h.upstream.enqueue({ ...streamOf('openai-tool-calls-stream'), breakAfter: 6 })
    await assert.rejects(
      h.anthropic().messages.stream({ model: 'm', max_tokens: 5, messages: USER }).finalMessage(),
      (error: unknown) => {
        assert.equal(anthropicCode(error), 'upstream_stream_interrupted')
        return true
      },
    )

    h.upstream.enqueue({ ...streamOf('openai-text-stream'), breakAfter: 2 })
    const raw = await h.fetch('/v1/chat/completions', {
      json: { model: 'm', stream: true, messages: USER },
    })
    const events = (await raw.text()).split('\n\n').filter((e) => e !== '')
    assert.doesNotMatch(events.join('\n'), /\[DONE\]/)
    const last = JSON.parse(events.at(-1)!.slice(6)) as {
      error: { code: string }
      request_id: string
    }
    assert.equal(last.error.code, 'upstream_stream_interrupted')
    assert.equal(last.request_id, raw.headers.get('x-request-id'))
    const line = await h.logLine(last.request_id)
    assert.equal(line.status, 200)
    assert.equal(line.error_code, 'upstream_stream_interrupted')
  })

  it('a client that disconnects mid-stream aborts the upstream call', async () => {
    const before = h.upstream.requests.length
    h.upstream.enqueue({ ...streamOf('openai-text-stream'), eventDelayMs: 100 })
    const controller = new AbortController()
    const response = await h.fetch('/v1/chat/completions', {
      json: { model: 'm', stream: true, messages: USER },
      signal: controller.signal,
    })
    const id = response.headers.get('x-request-id')!
    const reader = response.body!.getReader()
    await reader.read()
    controller.abort()
    await h.upstream.waitForAbort(before)
    const line = await h.logLine(id)
    assert.equal(line.error_code, 'client_closed_request')
    assert.equal(line.stream, true)
  })

  it('a stream whose body ends without [DONE] ends with an error event, not as finished', async () => {
    const cut = streamOf('openai-text-stream').sse.slice(0, 3).map(formatEvent).join('')
    for (const path of ['/v1/chat/completions', '/v1/messages']) {
      h.upstream.enqueue({ raw: cut, headers: SSE_HEADERS })
      const text = await rawStream(h, path)
      assert.doesNotMatch(text, /^data: \[DONE\]$|^event: message_stop$/m, path)
      const last = lastError(text)
      assert.equal(last.error.code, 'upstream_stream_interrupted', path)
      assert.match(last.error.message, /ended before data: \[DONE\]/)
      assert.equal((await h.logLine(last.request_id)).error_code, 'upstream_stream_interrupted')
    }
  })

  it('quotes upstream data it cannot read without the upstream key, even at the cut', async () => {
    const first = formatEvent(streamOf('openai-text-stream').sse[0]!)
    // 55 characters before the key: a plain 60-character excerpt would show its first 5.
    const pad = 'x'.repeat(48)
    const cases: [string, string][] = [
      // Data that is not a JSON object, refused as it arrives.
      ['/v1/chat/completions', `data: Bearer ${UPSTREAM_KEY}\n\n`],
      ['/v1/chat/completions', `data: ${pad}Bearer ${UPSTREAM_KEY}\n\n`],
      // Braced data that is not JSON, refused when it is translated.
      ['/v1/messages', `data: {Bearer ${UPSTREAM_KEY}}\n\n`],
      ['/v1/messages', `data: {${pad.slice(1)}Bearer ${UPSTREAM_KEY}}\n\n`],
      // A line that is no SSE field at all.
      ['/v1/chat/completions', `Bearer ${UPSTREAM_KEY}\n\n`],
      ['/v1/chat/completions', `${pad}Bearer ${UPSTREAM_KEY}\n\n`],
    ]
    for (const [path, tail] of cases) {
      h.upstream.enqueue({ raw: first + tail, headers: SSE_HEADERS })
      const text = await rawStream(h, path)
      const last = lastError(text)
      assert.equal(last.error.code, 'upstream_stream_interrupted', tail)
      assert.match(last.error.message, /\[red/, tail)
      assert.ok(!text.includes(UPSTREAM_KEY.slice(0, 5)), text)
    }
  })

  it('a client that leaves while the upstream works logs that time as upstream time', async () => {
    // First while the upstream has not answered at all, then while it is between two events.
    const requests = h.upstream.requests.length
    h.upstream.enqueue({ hang: true }, { ...streamOf('openai-text-stream'), eventDelayMs: 10_000 })
    const skip = h.log.length
    const waiting = new AbortController()
    const pending = h.fetch('/v1/chat/completions', {
      json: streamRequest('/v1/chat/completions'),
      signal: waiting.signal,
    })
    while (h.upstream.requests.length === requests) await sleep(5)
    await sleep(300)
    waiting.abort()
    await assert.rejects(pending)
    const unanswered = await nextLine(h, skip, '/v1/chat/completions')

    const streaming = new AbortController()
    const response = await h.fetch('/v1/chat/completions', {
      json: streamRequest('/v1/chat/completions'),
      signal: streaming.signal,
    })
    await response.body!.getReader().read()
    await sleep(300)
    streaming.abort()
    const midStream = await h.logLine(response.headers.get('x-request-id')!)

    for (const line of [unanswered, midStream]) {
      assert.equal(line.error_code, 'client_closed_request')
      assert.ok(line.upstream_ms !== null, JSON.stringify(line))
      assert.ok(line.upstream_ms > line.own_ms, JSON.stringify(line))
    }
  })

  it('a client that gives up on a JSON request aborts the upstream call', async () => {
    const before = h.upstream.requests.length
    h.upstream.enqueue({ hang: true })
    const controller = new AbortController()
    const pending = h.fetch('/v1/messages', {
      json: { model: 'm', max_tokens: 5, messages: USER },
      signal: controller.signal,
    })
    while (h.upstream.requests.length === before) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    await assert.rejects(pending)
    await h.upstream.waitForAbort(before)
  })
})

describe('an Anthropic-format upstream whose stream ends early', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'anthropic' })
  })
  after(() => h.close())

  it('ends with an error event on both endpoints, not as a finished answer', async () => {
    const stream = streamOf('anthropic-text-tool-use-stream').sse
    assert.equal(stream.at(-1)?.event, 'message_stop')
    for (const path of ['/v1/chat/completions', '/v1/messages']) {
      h.upstream.enqueue({ sse: stream.slice(0, -1) })
      const text = await rawStream(h, path)
      assert.doesNotMatch(text, /^data: \[DONE\]$|^event: message_stop$/m, path)
      const last = lastError(text)
      assert.equal(last.error.code, 'upstream_stream_interrupted', path)
      assert.match(last.error.message, /ended before the message_stop event/)
    }
  })
})

describe('a slow upstream', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'openai', timeoutMs: 300 })
  })
  after(() => h.close())

  it('is 504 upstream_timeout', async () => {
    h.upstream.enqueue({ hang: true }, { hang: true })
    await assert.rejects(
      h.openai().chat.completions.create({ model: 'm', messages: USER }),
      (error: unknown) => {
        const e = openaiError(error)
        assert.equal(e.status, 504)
        assert.equal(e.code, 'upstream_timeout')
        assert.equal(e.type, 'timeout_error')
        return true
      },
    )
    await assert.rejects(
      h.anthropic().messages.create({ model: 'm', max_tokens: 5, messages: USER, stream: true }),
      (error: unknown) => {
        assert.equal(anthropicCode(error), 'upstream_timeout')
        return true
      },
    )
  })
})

describe('a dead upstream', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'anthropic' })
    await h.upstream.close()
  })
  after(() => h.close())

  it('is 502 upstream_unreachable', async () => {
    await assert.rejects(
      h.openai().chat.completions.create({ model: 'm', messages: USER }),
      (error: unknown) => {
        const e = openaiError(error)
        assert.equal(e.status, 502)
        assert.equal(e.code, 'upstream_unreachable')
        assert.doesNotMatch(e.message, /sk-upstream-secret/)
        return true
      },
    )
    await assert.rejects(
      h.anthropic().messages.create({ model: 'm', max_tokens: 5, messages: USER }),
      (error: unknown) => {
        assert.equal(anthropicCode(error), 'upstream_unreachable')
        return true
      },
    )
  })
})
