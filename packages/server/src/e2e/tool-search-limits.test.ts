import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Harness } from './harness.js'
import { type ModelAction, scriptedModel, type UpstreamView } from './model-script.js'
import { CREATE_REFUND, DEFERRED_DECOYS, fn, GET_ORDER, REFUND_ARGS } from './tool-catalog.js'

type Json = Record<string, unknown>

const search = (query: string) => ({
  calls: [{ name: 'syntic_tool_search', arguments: JSON.stringify({ query }) }],
})

describe('tool search limits and the loop', () => {
  let harness: Harness
  before(async () => {
    harness = await Harness.start({ format: 'openai' })
  })
  after(() => harness.close())

  async function chat(body: Json): Promise<{ status: number; json: Json }> {
    const response = await harness.fetch('/v1/chat/completions', { json: { model: 'm', ...body } })
    return { status: response.status, json: (await response.json()) as Json }
  }

  function message(json: Json): Json {
    return ((json.choices as Json[])[0]!.message as Json) ?? {}
  }

  test('at 128 loaded tools a search unloads the least recently loaded, and says which', async () => {
    const widgets = Array.from({ length: 130 }, (_, i) =>
      fn(`widget_tool_${i}`, `Operates widget number ${i}.`),
    )
    const parcels = ['ups', 'dhl', 'fedex', 'royal_mail', 'dpd'].map((carrier) =>
      fn(`ship_parcel_${carrier}`, `Ship a parcel by courier with ${carrier}.`),
    )
    const replayed = widgets.slice(0, 128).map((tool) => (tool.function as Json).name as string)
    const views: UpstreamView[] = []
    const model = scriptedModel((_view, turn): ModelAction => {
      if (turn === 0) return search('ship a parcel by courier')
      return { text: 'Done.' }
    }, views)
    harness.upstream.enqueue(model, model)
    const { status, json } = await chat({
      tools: [{ type: 'syntic_tool_search', max_results: 3 }, GET_ORDER, ...widgets, ...parcels],
      messages: [
        { role: 'user', content: 'Operate the widgets.' },
        { role: 'assistant', content: 'Operated.', tool_search: { loaded: replayed } },
        { role: 'user', content: 'Now ship a parcel.' },
      ],
    })
    assert.equal(status, 200, JSON.stringify(json))
    const [first, second] = views as [UpstreamView, UpstreamView]
    for (const name of replayed) assert.ok(first.toolNames.includes(name), `${name} replayed`)
    assert.equal(first.toolNames.length, 128 + 2)
    const found = (message(json).server_tool_calls as Json[])[0]!.loaded as string[]
    assert.equal(found.length, 3)
    for (const name of found) assert.match(name, /^ship_parcel_/)
    const unloaded = replayed.slice(0, 3)
    for (const name of unloaded) {
      assert.ok(!second.toolNames.includes(name), `${name} unloaded`)
      assert.match(second.toolResults[0]!, new RegExp(`\\b${name}\\b`))
    }
    for (const name of found) assert.ok(second.toolNames.includes(name))
    assert.equal(second.toolNames.filter((n) => n.startsWith('widget_tool_')).length, 125)
    const record = (message(json).tool_search as Json).loaded as string[]
    assert.equal(record.length, 128)
    assert.deepEqual(record, [...replayed.slice(3), ...found])
  })

  test('after 10 rounds the search tool is taken away and the model told to answer', async () => {
    const views: UpstreamView[] = []
    const model = scriptedModel((_view, turn): ModelAction => {
      if (turn < 10) return search(`order tool ${turn}`)
      return { text: 'Answering with what I have.' }
    }, views)
    for (let i = 0; i < 11; i++) harness.upstream.enqueue(model)
    const { status, json } = await chat({
      tools: [{ type: 'syntic_tool_search' }, GET_ORDER, CREATE_REFUND, ...DEFERRED_DECOYS],
      messages: [{ role: 'user', content: 'Hi' }],
    })
    assert.equal(status, 200, JSON.stringify(json))
    assert.equal(views.length, 11)
    for (const view of views.slice(0, 10)) assert.ok(view.toolNames.includes('syntic_tool_search'))
    const last = views[10]!
    assert.ok(!last.toolNames.includes('syntic_tool_search'))
    assert.match(last.toolResults[0]!, /no longer available/)
    assert.equal((message(json).server_tool_calls as Json[]).length, 10)
    assert.equal(message(json).content, 'Answering with what I have.')
    assert.equal((json.choices as Json[])[0]!.finish_reason, 'stop')
  })

  test('a model that keeps searching past the cap has those calls dropped', async () => {
    const model = scriptedModel(() => search('anything'))
    for (let i = 0; i < 11; i++) harness.upstream.enqueue(model)
    const before = harness.upstream.requests.length
    const { status, json } = await chat({
      tools: [{ type: 'syntic_tool_search' }, GET_ORDER, CREATE_REFUND],
      messages: [{ role: 'user', content: 'Hi' }],
    })
    assert.equal(status, 200, JSON.stringify(json))
    assert.equal(harness.upstream.requests.length - before, 11)
    assert.equal((message(json).server_tool_calls as Json[]).length, 10)
    assert.equal(message(json).tool_calls, undefined)
    assert.equal((json.choices as Json[])[0]!.finish_reason, 'stop')
  })

  test('bad search arguments from the model are error results it can act on, not API errors', async () => {
    const views: UpstreamView[] = []
    const long = 'x'.repeat(1001)
    const model = scriptedModel((_view, turn): ModelAction => {
      const calls = ['{"query": ', '{}', JSON.stringify({ query: long }), '[1]']
      if (turn < calls.length) {
        return { calls: [{ name: 'syntic_tool_search', arguments: calls[turn]! }] }
      }
      return { text: 'Sorry.' }
    }, views)
    for (let i = 0; i < 5; i++) harness.upstream.enqueue(model)
    const { status, json } = await chat({
      tools: [{ type: 'syntic_tool_search' }, GET_ORDER, CREATE_REFUND],
      messages: [{ role: 'user', content: 'Hi' }],
    })
    assert.equal(status, 200, JSON.stringify(json))
    assert.match(views[1]!.toolResults[0]!, /not valid JSON/)
    assert.match(views[2]!.toolResults[0]!, /"query" is missing/)
    assert.match(views[3]!.toolResults[0]!, /longer than 1000/)
    assert.match(views[4]!.toolResults[0]!, /must be a JSON object/)
    const calls = message(json).server_tool_calls as Json[]
    assert.deepEqual(
      calls.map((c) => [c.status, (c.query as string).length, c.loaded]),
      [
        ['error', 0, []],
        ['error', 0, []],
        ['error', 1000, []],
        ['error', 0, []],
      ],
    )
    assert.deepEqual((message(json).tool_search as Json).loaded, [])
  })

  test('a turn with server and client calls runs the search, then returns the client call', async () => {
    const model = scriptedModel(() => ({
      calls: [
        { name: 'syntic_tool_search', arguments: '{"query":"refund an order"}' },
        { name: 'get_order', arguments: '{"order_number":"582131"}' },
      ],
    }))
    harness.upstream.enqueue(model)
    const response = await harness.fetch('/v1/chat/completions', {
      json: {
        model: 'm',
        stream: true,
        tools: [{ type: 'syntic_tool_search' }, GET_ORDER, CREATE_REFUND],
        messages: [{ role: 'user', content: 'Hi' }],
      },
    })
    const text = await response.text()
    const chunks = text
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)) as Json)
    const deltas = chunks.flatMap((c) => (c.choices as Json[]).map((ch) => ch.delta as Json))
    const calls = deltas.flatMap((d) => (d.tool_calls ?? []) as Json[])
    assert.ok(calls.length > 0)
    for (const call of calls) assert.equal(call.index, 0, 'the client call is renumbered to 0')
    assert.equal((calls[0]!.function as Json).name, 'get_order')
    assert.ok(!text.includes('"name":"syntic_tool_search"'), 'the search call is never forwarded')
    const server = deltas.flatMap((d) => (d.server_tool_calls ?? []) as Json[])
    assert.deepEqual(
      server.map((s) => s.status),
      ['running', 'ok'],
    )
    const finishes = chunks.flatMap((c) => (c.choices as Json[]).map((ch) => ch.finish_reason))
    assert.deepEqual(
      finishes.filter((f) => f !== null),
      ['tool_calls'],
    )
    assert.ok(text.endsWith('data: [DONE]\n\n'))
  })

  test('tool_choice naming the search tool holds for the first turn only', async () => {
    const views: UpstreamView[] = []
    const model = scriptedModel((_view, turn): ModelAction => {
      if (turn === 0) return search('refund an order')
      return { calls: [{ name: 'create_refund', arguments: REFUND_ARGS }] }
    }, views)
    harness.upstream.enqueue(model, model)
    const { status, json } = await chat({
      tools: [{ type: 'syntic_tool_search' }, GET_ORDER, CREATE_REFUND],
      tool_choice: { type: 'function', function: { name: 'syntic_tool_search' } },
      messages: [{ role: 'user', content: 'Hi' }],
    })
    assert.equal(status, 200, JSON.stringify(json))
    assert.deepEqual(views[0]!.body.tool_choice, {
      type: 'function',
      function: { name: 'syntic_tool_search' },
    })
    assert.equal(views[1]!.body.tool_choice, 'auto')
  })

  test('server tool calls are counted in the metrics', async () => {
    const response = await harness.fetch('/metrics')
    const text = await response.text()
    assert.match(
      text,
      /syntic_server_tool_calls_total\{type="syntic_tool_search",status="ok"\} [1-9]/,
    )
    assert.match(
      text,
      /syntic_server_tool_calls_total\{type="syntic_tool_search",status="error"\} [1-9]/,
    )
  })
})
