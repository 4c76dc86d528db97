import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { UpstreamFormat } from '../upstream/port.js'
import { Harness } from './harness.js'
import { type ModelAction, scriptedModel, TURN_USAGE, type UpstreamView } from './model-script.js'
import {
  asMessagesTool,
  CREATE_REFUND,
  DEFERRED_DECOYS,
  GET_ORDER,
  REFUND_ARGS,
} from './tool-catalog.js'

type Json = Record<string, unknown>

const SEARCH_ENTRY = { type: 'syntic_tool_search', max_results: 3 }
const CHAT_TOOLS = [SEARCH_ENTRY, GET_ORDER, CREATE_REFUND, ...DEFERRED_DECOYS]
const MESSAGES_TOOLS = [
  SEARCH_ENTRY,
  ...[GET_ORDER, CREATE_REFUND, ...DEFERRED_DECOYS].map(asMessagesTool),
]
const USER = 'Refund £12.50 on order 582131.'

/** Searches first, then calls the tool the search loaded; checks what it sees each turn. */
function refundModel(views: UpstreamView[]) {
  return scriptedModel((_view, turn): ModelAction => {
    if (turn === 0) {
      return {
        text: 'Let me find the right tool.',
        calls: [{ name: 'syntic_tool_search', arguments: '{"query":"refund an order"}' }],
      }
    }
    return { calls: [{ name: 'create_refund', arguments: REFUND_ARGS }] }
  }, views)
}

/** What the upstream saw: the search tool with its hint and no deferred tool, then the loaded one. */
function checkUpstreamTurns(views: UpstreamView[]): void {
  assert.equal(views.length, 2)
  const [first, second] = views as [UpstreamView, UpstreamView]
  assert.deepEqual(first.toolNames.sort(), ['get_order', 'syntic_tool_search'])
  const search = first.tools.find((t) => t.name === 'syntic_tool_search')!
  assert.match(search.description, /16/, 'the hint counts the deferred tools')
  assert.ok(second.toolNames.includes('create_refund'))
  assert.ok(second.toolNames.includes('get_order'))
  assert.ok(second.toolNames.length <= 2 + 3 + 0 + 1)
  assert.equal(second.toolResults.length, 1)
  assert.match(second.toolResults[0]!, /create_refund/)
  for (const view of views) {
    const text = JSON.stringify(view.body)
    assert.ok(!text.includes('defer_loading'), 'defer_loading never reaches the upstream')
    assert.ok(!text.includes('"syntic_tool_search","max_results"'), 'nor the search entry')
  }
}

for (const format of ['openai', 'anthropic'] as UpstreamFormat[]) {
  describe(`tool search through a ${format} upstream`, () => {
    let harness: Harness
    before(async () => {
      harness = await Harness.start({ format })
    })
    after(() => harness.close())

    for (const stream of [false, true]) {
      const how = stream ? 'streamed' : 'JSON'
      test(`chat completions, ${how}: search, load, call the loaded tool`, async () => {
        const views: UpstreamView[] = []
        harness.upstream.enqueue(refundModel(views), refundModel(views))
        const openai = harness.openai()
        const body = {
          model: 'm',
          messages: [{ role: 'user', content: USER }],
          tools: CHAT_TOOLS,
        } as never
        let message: Json
        let finish: string | null
        let usage: Json | undefined
        if (!stream) {
          const completion = (await openai.chat.completions.create(body)) as unknown as Json
          const choice = (completion.choices as Json[])[0]!
          message = choice.message as Json
          finish = choice.finish_reason as string
          usage = completion.usage as Json
          assert.equal(message.content, 'Let me find the right tool.')
        } else {
          const chunks: Json[] = []
          const events = await openai.chat.completions.create({
            ...(body as object),
            stream: true,
            stream_options: { include_usage: true },
          } as never)
          for await (const chunk of events as unknown as AsyncIterable<Json>) chunks.push(chunk)
          ;({ message, finish, usage } = assemble(chunks))
          assert.equal(new Set(chunks.map((c) => c.id)).size, 1, 'one id across the stream')
          assert.equal(message.content, 'Let me find the right tool.')
          // The SDK's accumulating helper takes the same stream without error.
          const again: UpstreamView[] = []
          harness.upstream.enqueue(refundModel(again), refundModel(again))
          const final = await openai.chat.completions.stream(body).finalChatCompletion()
          assert.equal(final.choices[0]!.message.tool_calls?.length, 1)
          assert.equal(final.choices[0]!.finish_reason, 'tool_calls')
        }
        checkUpstreamTurns(views)
        assert.equal(finish, 'tool_calls')
        const server = message.server_tool_calls as Json[]
        assert.equal(server.length, 1)
        assert.match(String(server[0]!.id), /^srv_[0-9A-Za-z]{24}$/)
        assert.equal(server[0]!.type, 'syntic_tool_search')
        assert.equal(server[0]!.query, 'refund an order')
        assert.equal(server[0]!.status, 'ok')
        assert.ok((server[0]!.loaded as string[]).includes('create_refund'))
        assert.deepEqual((message.tool_search as Json).loaded, server[0]!.loaded)
        const calls = message.tool_calls as Json[]
        assert.equal(calls.length, 1)
        assert.deepEqual(calls[0]!.function, { name: 'create_refund', arguments: REFUND_ARGS })
        assert.equal(usage?.prompt_tokens, 2 * TURN_USAGE.prompt_tokens, 'usage summed over turns')
        assert.equal(usage?.completion_tokens, 2 * TURN_USAGE.completion_tokens)
      })

      test(`messages, ${how}: search, load, call the loaded tool`, async () => {
        const views: UpstreamView[] = []
        harness.upstream.enqueue(refundModel(views), refundModel(views))
        const anthropic = harness.anthropic()
        const body = {
          model: 'm',
          max_tokens: 1024,
          messages: [{ role: 'user', content: USER }],
          tools: MESSAGES_TOOLS,
        } as never
        const message = (stream
          ? await anthropic.messages.stream(body).finalMessage()
          : await anthropic.messages.create(body)) as unknown as Json
        checkUpstreamTurns(views)
        assert.equal(message.stop_reason, 'tool_use')
        const blocks = message.content as Json[]
        const types = blocks.map((b) => b.type)
        assert.deepEqual(
          types.filter((t) => t !== 'text'),
          ['server_tool_use', 'syntic_tool_search_result', 'tool_use'],
        )
        const use = blocks.find((b) => b.type === 'server_tool_use')!
        assert.equal(use.name, 'syntic_tool_search')
        assert.deepEqual(use.input, { query: 'refund an order' })
        const result = blocks.find((b) => b.type === 'syntic_tool_search_result')!
        assert.equal(result.tool_use_id, use.id)
        assert.equal(result.status, 'ok')
        assert.ok((result.loaded as string[]).includes('create_refund'))
        const call = blocks.find((b) => b.type === 'tool_use')!
        assert.equal(call.name, 'create_refund')
        assert.deepEqual(call.input, JSON.parse(REFUND_ARGS))
        const text = blocks
          .filter((b) => b.type === 'text')
          .map((b) => b.text)
          .join('')
        assert.equal(text, 'Let me find the right tool.')
        const usage = message.usage as Json
        assert.equal(usage.input_tokens, 2 * TURN_USAGE.prompt_tokens)
      })
    }
  })
}

/** A streamed chat completion put together the way a client would, strictly. */
export function assemble(chunks: Json[]): {
  message: Json
  finish: string | null
  usage: Json | undefined
} {
  let content = ''
  const calls: Json[] = []
  const server = new Map<number, Json>()
  const running: number[] = []
  let finish: string | null = null
  let usage: Json | undefined
  let toolSearch: unknown
  let finishes = 0
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage as Json
    for (const choice of (chunk.choices ?? []) as Json[]) {
      const delta = choice.delta as Json
      if (typeof delta.content === 'string') content += delta.content
      for (const call of (delta.tool_calls ?? []) as Json[]) {
        const index = call.index as number
        const fnDelta = call.function as Json
        if (call.id !== undefined) {
          assert.equal(index, calls.length, 'client tool calls are numbered 0, 1, ...')
          calls.push({
            id: call.id,
            type: 'function',
            function: { name: fnDelta.name, arguments: fnDelta.arguments ?? '' },
          })
        } else {
          const target = calls[index]!.function as Json
          target.arguments = String(target.arguments) + String(fnDelta.arguments ?? '')
        }
      }
      for (const entry of (delta.server_tool_calls ?? []) as Json[]) {
        const index = entry.index as number
        if (entry.status === 'running') {
          assert.ok(!server.has(index), 'running comes first')
          running.push(index)
        } else {
          assert.ok(running.includes(index), 'a result follows its running delta')
        }
        const { index: _index, ...rest } = entry
        server.set(index, rest)
      }
      if (delta.tool_search !== undefined) toolSearch = delta.tool_search
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        finish = choice.finish_reason as string
        finishes += 1
      }
    }
  }
  assert.equal(finishes, 1, 'only one finish_reason is sent')
  const message: Json = {
    content,
    server_tool_calls: [...server.values()],
    tool_search: toolSearch,
  }
  if (calls.length > 0) message.tool_calls = calls
  return { message, finish, usage }
}
