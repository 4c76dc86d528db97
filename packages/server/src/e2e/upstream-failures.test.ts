import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { APIError as AnthropicAPIError } from '@anthropic-ai/sdk'
import { APIError as OpenAIAPIError } from 'openai'
import { loadFixture, type ScriptedReply } from '../testing/scripted-upstream.js'
import { envelopeOf, Harness } from './harness.js'

const USER = [{ role: 'user' as const, content: 'hi' }]

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
