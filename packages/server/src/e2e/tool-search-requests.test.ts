import assert from 'node:assert/strict'
import { createServer as createHttpServer } from 'node:http'
import { type AddressInfo, createServer } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { createToolIndex } from '../server-tools/tool-search/create-tool-index.js'
import { envelopeOf, Harness } from './harness.js'
import { type ModelAction, scriptedModel, type UpstreamView } from './model-script.js'
import {
  asMessagesTool,
  CREATE_REFUND,
  DEFERRED_DECOYS,
  fn,
  GET_ORDER,
  REFUND_ARGS,
} from './tool-catalog.js'

type Json = Record<string, unknown>

const SEARCH = { type: 'syntic_tool_search' }

function refundModel(views: UpstreamView[]) {
  return scriptedModel((_view, turn): ModelAction => {
    if (turn === 0) {
      return { calls: [{ name: 'syntic_tool_search', arguments: '{"query":"refund an order"}' }] }
    }
    return { calls: [{ name: 'create_refund', arguments: REFUND_ARGS }] }
  }, views)
}

describe('tool search requests, openai upstream', () => {
  let harness: Harness
  before(async () => {
    harness = await Harness.start({ format: 'openai' })
  })
  after(() => harness.close())

  test('the tool_search record sent back loads the same tools from the first upstream call', async () => {
    const views: UpstreamView[] = []
    harness.upstream.enqueue(refundModel(views), refundModel(views))
    const tools = [SEARCH, GET_ORDER, CREATE_REFUND, ...DEFERRED_DECOYS]
    const user = { role: 'user', content: 'Refund £12.50 on order 582131.' }
    const first = await harness.fetch('/v1/chat/completions', {
      json: { model: 'm', tools, messages: [user] },
    })
    const answer = ((await first.json()) as { choices: { message: Json }[] }).choices[0]!.message
    const loaded = (answer.tool_search as Json).loaded as string[]
    assert.ok(loaded.includes('create_refund'))

    const replayViews: UpstreamView[] = []
    harness.upstream.enqueue(scriptedModel(() => ({ text: 'Refunded.' }), replayViews))
    const call = (answer.tool_calls as Json[])[0]!
    const second = await harness.fetch('/v1/chat/completions', {
      json: {
        model: 'm',
        tools,
        messages: [user, answer, { role: 'tool', tool_call_id: call.id, content: 'refund ok' }],
      },
    })
    assert.equal(second.status, 200)
    const body = (await second.json()) as { choices: { message: Json }[] }
    const upstream = replayViews[0]!
    for (const name of loaded) assert.ok(upstream.toolNames.includes(name), `${name} replayed`)
    const sent = (upstream.body.messages as Json[])[1]!
    assert.equal(sent.role, 'assistant')
    assert.ok(!('server_tool_calls' in sent) && !('tool_search' in sent), 'records stripped')
    assert.deepEqual(body.choices[0]!.message.tool_search, { loaded })
    assert.deepEqual(body.choices[0]!.message.server_tool_calls, [])
  })

  test('a 10,000-tool request: search among 9,999 deferred tools, then call the one found', async () => {
    const verbs = ['get', 'list', 'update', 'delete', 'archive', 'sync', 'export', 'import']
    const nouns = [
      'invoice',
      'ticket',
      'user',
      'project',
      'file',
      'label',
      'webhook',
      'team',
      'note',
    ]
    const deferred: Json[] = []
    for (let i = 0; deferred.length < 9_998; i++) {
      const verb = verbs[i % verbs.length]!
      const noun = nouns[Math.floor(i / verbs.length) % nouns.length]!
      deferred.push(
        fn(`${verb}_${noun}_${i}`, `${verb} a ${noun} in workspace ${i}.`, {
          id: { type: 'string' },
        }),
      )
    }
    deferred.splice(4_321, 0, CREATE_REFUND)
    const tools = [SEARCH, GET_ORDER, ...deferred]
    assert.equal(tools.length, 10_001, 'the search entry and 10,000 tools')
    const views: UpstreamView[] = []
    harness.upstream.enqueue(refundModel(views), refundModel(views))
    const response = await harness.fetch('/v1/chat/completions', {
      json: { model: 'm', tools, messages: [{ role: 'user', content: 'Refund order 582131.' }] },
    })
    const body = (await response.json()) as { choices: { message: Json; finish_reason: string }[] }
    assert.equal(response.status, 200, JSON.stringify(body).slice(0, 500))
    assert.deepEqual(views[0]!.toolNames.sort(), ['get_order', 'syntic_tool_search'])
    assert.match(views[0]!.tools.find((t) => t.name === 'syntic_tool_search')!.description, /9,999/)
    assert.ok(views[1]!.toolNames.includes('create_refund'))
    assert.ok(views[1]!.toolNames.length <= 2 + 5)
    const message = body.choices[0]!.message
    assert.equal(((message.tool_calls as Json[])[0]!.function as Json).name, 'create_refund')
    assert.equal(body.choices[0]!.finish_reason, 'tool_calls')
  })

  test('a client that disconnects mid-loop aborts the loop and the upstream call', async () => {
    harness.upstream.enqueue(
      scriptedModel(() => ({
        calls: [{ name: 'syntic_tool_search', arguments: '{"query":"refund"}' }],
      })),
      { hang: true },
    )
    const index = harness.upstream.requests.length + 1
    const controller = new AbortController()
    const response = await harness.fetch('/v1/chat/completions', {
      json: {
        model: 'm',
        stream: true,
        tools: [SEARCH, GET_ORDER, CREATE_REFUND],
        messages: [{ role: 'user', content: 'Refund.' }],
      },
      signal: controller.signal,
    })
    const id = response.headers.get('x-request-id')!
    const reader = response.body!.getReader()
    let seen = ''
    while (!seen.includes('"status":"ok"')) {
      const { value, done } = await reader.read()
      assert.ok(!done, 'the stream ended before the search result')
      seen += new TextDecoder().decode(value)
    }
    controller.abort()
    await harness.upstream.waitForAbort(index)
    const line = await harness.logLine(id)
    assert.equal(line.error_code, 'client_closed_request')
    assert.ok(line.upstream_ms !== null)
  })
})

describe('tool search errors through HTTP', () => {
  let harness: Harness
  before(async () => {
    harness = await Harness.start({ format: 'openai' })
  })
  after(() => harness.close())

  const cases: { name: string; chat: Json; code: string }[] = [
    {
      name: 'a deferred tool without the search tool',
      chat: { tools: [GET_ORDER, CREATE_REFUND] },
      code: 'tool_search_required',
    },
    {
      name: 'every tool deferred and tool_choice naming one',
      chat: {
        tools: [SEARCH, CREATE_REFUND],
        tool_choice: { type: 'function', function: { name: 'create_refund' } },
      },
      code: 'all_tools_deferred',
    },
    {
      name: '10,001 tools',
      chat: {
        tools: [SEARCH, ...Array.from({ length: 10_001 }, (_, i) => fn(`t_${i}`, 'x'))],
      },
      code: 'too_many_tools',
    },
  ]
  for (const { name, chat, code } of cases) {
    test(`chat completions: ${name} is 400 ${code}`, async () => {
      const before = harness.upstream.requests.length
      const response = await harness.fetch('/v1/chat/completions', {
        json: { model: 'm', messages: [{ role: 'user', content: 'Hi' }], ...chat },
      })
      assert.equal(response.status, 400)
      assert.equal((await envelopeOf(response)).error.code, code)
      assert.equal(harness.upstream.requests.length, before, 'the upstream is never called')
    })

    test(`messages: ${name} is 400 ${code}`, async () => {
      const tools = (chat.tools as Json[]).map((t) =>
        t.type === 'function' ? asMessagesTool(t) : t,
      )
      const toolChoice =
        chat.tool_choice === undefined
          ? {}
          : { tool_choice: { type: 'tool', name: 'create_refund' } }
      const response = await harness.fetch('/v1/messages', {
        json: {
          model: 'm',
          max_tokens: 100,
          messages: [{ role: 'user', content: 'Hi' }],
          tools,
          ...toolChoice,
        },
      })
      assert.equal(response.status, 400)
      assert.equal((await envelopeOf(response)).error.code, code)
    })
  }

  test('records on a plain request are stripped before the upstream (chat)', async () => {
    harness.upstream.enqueue(scriptedModel(() => ({ text: 'ok' })))
    const response = await harness.fetch('/v1/chat/completions', {
      json: {
        model: 'm',
        tools: [{ ...GET_ORDER, defer_loading: false }],
        mcp_servers: [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'shop' }],
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: 'Hello',
            server_tool_calls: [
              { id: 'srv_1', type: 'syntic_tool_search', query: 'x', loaded: ['a'], status: 'ok' },
            ],
            tool_search: { loaded: ['a'] },
          },
          { role: 'user', content: 'Again' },
        ],
      },
    })
    assert.equal(response.status, 200)
    const sent = JSON.stringify(harness.upstream.requests.at(-1)!.body)
    for (const field of ['server_tool_calls', 'tool_search', 'mcp_servers', 'defer_loading']) {
      assert.ok(!sent.includes(field), `${field} stripped`)
    }
    assert.ok(sent.includes('"Hello"'))
  })
})

describe('tool search through an anthropic upstream', () => {
  let harness: Harness
  before(async () => {
    harness = await Harness.start({ format: 'anthropic' })
  })
  after(() => harness.close())

  test('messages: the record sent back as blocks loads the same tools again', async () => {
    const views: UpstreamView[] = []
    harness.upstream.enqueue(refundModel(views), refundModel(views))
    const tools = [SEARCH, ...[GET_ORDER, CREATE_REFUND, ...DEFERRED_DECOYS].map(asMessagesTool)]
    const user = { role: 'user', content: 'Refund order 582131.' }
    const first = await harness.fetch('/v1/messages', {
      json: { model: 'm', max_tokens: 100, tools, messages: [user] },
    })
    const answer = (await first.json()) as { content: Json[] }
    const call = answer.content.find((b) => b.type === 'tool_use')!
    const replayViews: UpstreamView[] = []
    harness.upstream.enqueue(scriptedModel(() => ({ text: 'Refunded.' }), replayViews))
    const second = await harness.fetch('/v1/messages', {
      json: {
        model: 'm',
        max_tokens: 100,
        tools,
        messages: [
          user,
          { role: 'assistant', content: answer.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'ok' }] },
        ],
      },
    })
    assert.equal(second.status, 200)
    assert.ok(replayViews[0]!.toolNames.includes('create_refund'))
    const sent = JSON.stringify(replayViews[0]!.body)
    assert.ok(!sent.includes('server_tool_use') && !sent.includes('syntic_tool_search_result'))
  })

  test('records on a plain messages request are stripped before the upstream', async () => {
    harness.upstream.enqueue(scriptedModel(() => ({ text: 'ok' })))
    const response = await harness.fetch('/v1/messages', {
      json: {
        model: 'm',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: [
              {
                type: 'server_tool_use',
                id: 'srv_1',
                name: 'syntic_tool_search',
                input: { query: 'x' },
              },
              {
                type: 'syntic_tool_search_result',
                tool_use_id: 'srv_1',
                loaded: ['a'],
                status: 'ok',
              },
              { type: 'text', text: 'Hello' },
            ],
          },
          { role: 'user', content: 'Again' },
        ],
      },
    })
    assert.equal(response.status, 200, await response.clone().text())
    const sent = JSON.stringify(harness.upstream.requests.at(-1)!.body)
    assert.ok(!sent.includes('server_tool_use') && !sent.includes('syntic_tool_search_result'))
    assert.ok(sent.includes('"Hello"'))
  })
})

/** A real OpenAI-compatible embeddings server on port 0 that fails until told otherwise. */
async function embeddingsServer() {
  const state = { failing: true, requests: 0, authorization: '' }
  const server = createHttpServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      state.requests++
      state.authorization = request.headers.authorization ?? ''
      if (state.failing) {
        response.writeHead(500, { 'content-type': 'text/plain' })
        response.end('model overloaded at gpu-node-7.internal (key sk-embed-secret)')
        return
      }
      const input = (JSON.parse(body) as { input: string[] }).input
      const data = input.map((text, index) => ({
        index,
        embedding: Array.from(
          { length: 8 },
          (_, d) => ((text.charCodeAt(d % text.length) || 1) % 7) + 1,
        ),
      }))
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ object: 'list', data, model: 'embedder' }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    state,
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('tool search when the embeddings backend fails', () => {
  let harness: Harness
  let embeddings: Awaited<ReturnType<typeof embeddingsServer>>
  before(async () => {
    embeddings = await embeddingsServer()
    harness = await Harness.start({
      format: 'openai',
      toolIndex: createToolIndex({
        url: embeddings.url,
        model: 'embedder',
        apiKey: 'sk-embed-secret',
      }),
    })
  })
  after(async () => {
    await harness.close()
    await embeddings.close()
  })

  const semanticRequest = () =>
    harness.fetch('/v1/chat/completions', {
      json: {
        model: 'm',
        tools: [{ type: 'syntic_tool_search', mode: 'semantic' }, GET_ORDER, CREATE_REFUND],
        messages: [{ role: 'user', content: 'Refund.' }],
      },
    })

  test('a semantic search is 502 embeddings_unavailable, saying nothing of the backend', async () => {
    harness.upstream.enqueue(refundModel([]))
    const response = await semanticRequest()
    assert.equal(response.status, 502)
    const envelope = await envelopeOf(response)
    assert.equal(envelope.error.code, 'embeddings_unavailable')
    assert.match(envelope.error.message, /"mode": "keyword"/)
    assert.doesNotMatch(envelope.error.message, /127\.0\.0\.1|gpu-node|sk-embed|500/)
    assert.ok(embeddings.state.requests >= 1, 'the embeddings server was asked')
    assert.equal(embeddings.state.authorization, 'Bearer sk-embed-secret')
  })

  test('the failed build is not kept: once the backend answers, the same catalog searches', async () => {
    embeddings.state.failing = false
    const before = embeddings.state.requests
    const views: UpstreamView[] = []
    harness.upstream.enqueue(refundModel(views), refundModel(views))
    const response = await semanticRequest()
    assert.equal(response.status, 200, await response.clone().text())
    const body = (await response.json()) as {
      choices: { message: { server_tool_calls: { status: string; loaded: string[] }[] } }[]
    }
    const [search] = body.choices[0]!.message.server_tool_calls
    assert.equal(search!.status, 'ok')
    assert.ok(search!.loaded.length >= 1)
    assert.ok(embeddings.state.requests >= before + 2, 'catalog and query embedded anew')
  })

  test('an embeddings server that is down is 502 too', async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const { port } = probe.address() as AddressInfo
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const down = await Harness.start({
      format: 'openai',
      toolIndex: createToolIndex({ url: `http://127.0.0.1:${port}`, model: 'embedder' }),
    })
    try {
      down.upstream.enqueue(refundModel([]))
      const response = await down.fetch('/v1/chat/completions', {
        json: {
          model: 'm',
          tools: [{ type: 'syntic_tool_search', mode: 'semantic' }, GET_ORDER, CREATE_REFUND],
          messages: [{ role: 'user', content: 'Refund.' }],
        },
      })
      assert.equal(response.status, 502)
      assert.equal((await envelopeOf(response)).error.code, 'embeddings_unavailable')
    } finally {
      await down.close()
    }
  })
})
