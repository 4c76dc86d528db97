import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChatCompletionRequest, ChatMessage, ChatTool } from '../chat/types.js'
import { validateChatRequest } from '../chat/validate.js'
import { validateMessagesRequest } from '../messages/validate.js'
import { messagesRequestToChat } from '../translate/messages-request-to-chat.js'
import { planToolSearch } from './plan.js'
import { TOOL_SEARCH_MAX_LOADED } from './types.js'

const fn = (name: string, defer?: boolean): ChatTool => ({
  type: 'function',
  ...(defer === undefined ? {} : { defer_loading: defer }),
  function: { name, description: `Does ${name}.`, parameters: { type: 'object' } },
})
const search = { type: 'syntic_tool_search' } as const

const recorded = (...loaded: string[]): ChatMessage => ({
  role: 'assistant',
  content: 'Done.',
  tool_search: { loaded },
})
const ask = (content = 'Next.'): ChatMessage => ({ role: 'user', content })

/** A request that passed validation, so the plan sees what the server sees. */
function request(body: Partial<ChatCompletionRequest>): ChatCompletionRequest {
  const check = validateChatRequest({ model: 'm', messages: [ask('Hi.')], ...body })
  assert.ok(check.ok, check.ok ? '' : check.problem.message)
  return check.value
}

const nameOf = (tool: ChatTool): string =>
  tool.type === 'function'
    ? tool.function.name
    : tool.type === 'custom'
      ? tool.custom.name
      : tool.type

describe('planToolSearch', () => {
  it('is null without the search tool, even with records in the history', () => {
    const plan = planToolSearch(
      request({ tools: [fn('a')], messages: [ask(), recorded('a'), ask()] }),
    )
    assert.equal(plan, null)
    assert.equal(planToolSearch(request({})), null)
  })

  it('splits loaded and deferred tools in request order, with the defaults', () => {
    const custom: ChatTool = { type: 'custom', defer_loading: true, custom: { name: 'sql' } }
    const plan = planToolSearch(
      request({
        tools: [fn('a', true), search, fn('b'), { type: 'syntic_shell' }, custom, fn('c', false)],
      }),
    )
    assert.ok(plan)
    assert.equal(plan.mode, 'keyword')
    assert.equal(plan.maxResults, 5)
    assert.deepEqual(plan.loaded.map(nameOf), ['b', 'syntic_shell', 'c'])
    assert.deepEqual(plan.deferred.map(nameOf), ['a', 'sql'])
    assert.deepEqual(plan.replayed, [])
  })

  it('removes defer_loading from the tools it hands on', () => {
    const plan = planToolSearch(request({ tools: [search, fn('a', false), fn('b', true)] }))
    assert.ok(plan)
    for (const tool of [...plan.loaded, ...plan.deferred]) assert.ok(!('defer_loading' in tool))
    assert.deepEqual(plan.deferred[0], {
      type: 'function',
      function: { name: 'b', description: 'Does b.', parameters: { type: 'object' } },
    })
  })

  it('takes mode and max_results from the entry', () => {
    const plan = planToolSearch(
      request({ tools: [{ ...search, mode: 'semantic', max_results: 10 }, fn('a', true)] }),
    )
    assert.equal(plan?.mode, 'semantic')
    assert.equal(plan?.maxResults, 10)
  })

  it('has nothing loaded when every tool is deferred: the search tool is the loaded one', () => {
    const plan = planToolSearch(request({ tools: [search, fn('a', true), fn('b', true)] }))
    assert.deepEqual(plan?.loaded, [])
    assert.deepEqual(plan?.deferred.map(nameOf), ['a', 'b'])
  })

  it('loads a deferred tool that tool_choice names from the start', () => {
    const plan = planToolSearch(
      request({
        tools: [search, fn('a'), fn('b', true), fn('c', true)],
        tool_choice: { type: 'function', function: { name: 'b' } },
      }),
    )
    assert.deepEqual(plan?.loaded.map(nameOf), ['a', 'b'])
    assert.deepEqual(plan?.deferred.map(nameOf), ['c'])
  })

  it('loads a deferred custom tool that tool_choice names', () => {
    const plan = planToolSearch(
      request({
        tools: [search, fn('a'), { type: 'custom', defer_loading: true, custom: { name: 'sql' } }],
        tool_choice: { type: 'custom', custom: { name: 'sql' } },
      }),
    )
    assert.deepEqual(plan?.loaded.map(nameOf), ['a', 'sql'])
    assert.deepEqual(plan?.deferred, [])
  })

  it('leaves the deferred tools alone when tool_choice names the search tool', () => {
    const plan = planToolSearch(
      request({
        tools: [search, fn('a', true)],
        tool_choice: { type: 'function', function: { name: 'syntic_tool_search' } },
      }),
    )
    assert.deepEqual(plan?.loaded, [])
    assert.deepEqual(plan?.deferred.map(nameOf), ['a'])
  })

  it('replays records from several messages, newest last, each name once', () => {
    const plan = planToolSearch(
      request({
        tools: [search, fn('a', true), fn('b', true), fn('c', true), fn('d', true)],
        messages: [ask(), recorded('a', 'b'), ask(), recorded('c'), ask(), recorded('a'), ask()],
      }),
    )
    assert.deepEqual(plan?.replayed, ['b', 'c', 'a'])
  })

  it('ignores names of no deferred tool in records: unknown, loaded or the search tool', () => {
    const plan = planToolSearch(
      request({
        tools: [search, fn('loaded'), fn('a', true)],
        messages: [ask(), recorded('gone', 'loaded', 'syntic_tool_search', 'a'), ask()],
      }),
    )
    assert.deepEqual(plan?.replayed, ['a'])
  })

  it(`keeps the ${TOOL_SEARCH_MAX_LOADED} most recent names`, () => {
    const names = Array.from({ length: 300 }, (_, i) => `t${i}`)
    const plan = planToolSearch(
      request({
        tools: [search, ...names.map((name) => fn(name, true))],
        messages: [
          ask(),
          recorded(...names.slice(0, 200)),
          ask(),
          recorded(...names.slice(150)),
          ask(),
        ],
      }),
    )
    assert.equal(plan?.replayed.length, TOOL_SEARCH_MAX_LOADED)
    assert.deepEqual(plan?.replayed, names.slice(300 - TOOL_SEARCH_MAX_LOADED))
  })

  it('plans 10,000 tools with a 10,000-name record in the history', () => {
    const names = Array.from({ length: 9_999 }, (_, i) => `tool_${i}`)
    const plan = planToolSearch(
      request({
        tools: [search, fn('always'), ...names.map((name) => fn(name, true))],
        messages: [ask(), recorded('always', ...names), ask()],
      }),
    )
    assert.equal(plan?.deferred.length, 9_999)
    assert.deepEqual(plan?.loaded.map(nameOf), ['always'])
    assert.deepEqual(plan?.replayed, names.slice(9_999 - TOOL_SEARCH_MAX_LOADED))
  })

  it('plans a messages request through its chat translation, replaying result blocks', () => {
    const check = validateMessagesRequest({
      model: 'm',
      max_tokens: 100,
      tools: [
        { type: 'syntic_tool_search', mode: 'semantic', max_results: 3 },
        { name: 'get_order', input_schema: { type: 'object' } },
        { name: 'create_refund', input_schema: { type: 'object' }, defer_loading: true },
        { name: 'cancel_order', input_schema: { type: 'object' }, defer_loading: true },
      ],
      tool_choice: { type: 'tool', name: 'cancel_order' },
      messages: [
        { role: 'user', content: 'Refund order 582131.' },
        {
          role: 'assistant',
          content: [
            {
              type: 'server_tool_use',
              id: 'srv_1',
              name: 'syntic_tool_search',
              input: { query: 'refund an order' },
            },
            {
              type: 'syntic_tool_search_result',
              tool_use_id: 'srv_1',
              loaded: ['create_refund', 'missing'],
              status: 'ok',
            },
            { type: 'text', text: 'Refunded.' },
          ],
        },
        { role: 'user', content: 'Now cancel it.' },
      ],
    })
    assert.ok(check.ok, check.ok ? '' : check.problem.message)
    const plan = planToolSearch(messagesRequestToChat(check.value))
    assert.ok(plan)
    assert.equal(plan.mode, 'semantic')
    assert.equal(plan.maxResults, 3)
    assert.deepEqual(plan.loaded.map(nameOf), ['get_order', 'cancel_order'])
    assert.deepEqual(plan.deferred.map(nameOf), ['create_refund'])
    assert.deepEqual(plan.replayed, ['create_refund'])
  })
})
