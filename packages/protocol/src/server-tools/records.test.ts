import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChatCompletionRequest } from '../chat/types.js'
import { validateChatRequest } from '../chat/validate.js'
import type { MessagesRequest } from '../messages/types.js'
import { validateMessagesRequest } from '../messages/validate.js'
import { stripMessagesServerRecords, stripServerRecords } from './records.js'

const mcp = [{ type: 'url', url: 'https://mcp.example.com', name: 'shop', defer_loading: true }]

function chat(body: Record<string, unknown>): ChatCompletionRequest {
  const check = validateChatRequest({ model: 'm', ...body })
  assert.ok(check.ok, check.ok ? '' : check.problem.message)
  return check.value
}

function messages(body: Record<string, unknown>): MessagesRequest {
  const check = validateMessagesRequest({ model: 'm', max_tokens: 100, ...body })
  assert.ok(check.ok, check.ok ? '' : check.problem.message)
  return check.value
}

const use = (id: string) => ({
  type: 'server_tool_use',
  id,
  name: 'syntic_tool_search',
  input: { query: 'refund' },
})
const result = (id: string) => ({
  type: 'syntic_tool_search_result',
  tool_use_id: id,
  loaded: ['create_refund'],
  status: 'ok',
})

describe('stripServerRecords', () => {
  it('returns the request itself when it carries nothing to remove', () => {
    const request = chat({
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'a' } }],
    })
    assert.equal(stripServerRecords(request), request)
  })

  it('removes records, mcp_servers and defer_loading, and leaves the input as it was', () => {
    const body = {
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: '',
          server_tool_calls: [
            { id: 'srv_1', type: 'syntic_tool_search', query: 'q', loaded: ['b'], status: 'ok' },
          ],
          tool_search: { loaded: ['b'] },
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'b', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'done' },
      ],
      tools: [
        { type: 'syntic_tool_search' },
        { type: 'function', defer_loading: false, function: { name: 'a' } },
        { type: 'function', defer_loading: true, function: { name: 'b' } },
      ],
      mcp_servers: mcp,
    }
    const before = JSON.stringify(body)
    const stripped = stripServerRecords(chat(structuredClone(body)))
    assert.deepEqual(stripped.messages[1], {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'b', arguments: '{}' } }],
    })
    assert.deepEqual(stripped.tools, [
      { type: 'syntic_tool_search' },
      { type: 'function', function: { name: 'a' } },
      { type: 'function', function: { name: 'b' } },
    ])
    assert.ok(!('mcp_servers' in stripped))
    assert.equal(JSON.stringify(body), before)
    const text = JSON.stringify(stripped)
    for (const word of ['server_tool_calls', '"tool_search"', 'mcp_servers', 'defer_loading']) {
      assert.ok(!text.includes(word), word)
    }
  })
})

describe('stripMessagesServerRecords', () => {
  it('returns the request itself when it carries nothing to remove', () => {
    const request = messages({ messages: [{ role: 'user', content: 'x' }] })
    assert.equal(stripMessagesServerRecords(request), request)
  })

  it('removes server blocks, mcp_servers and defer_loading', () => {
    const request = messages({
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: [use('srv_1'), result('srv_1'), { type: 'text', text: 'Refunded.' }],
        },
        { role: 'user', content: 'y' },
      ],
      tools: [
        { type: 'syntic_tool_search' },
        { name: 'a', input_schema: { type: 'object' }, defer_loading: true },
      ],
      mcp_servers: mcp,
    })
    const stripped = stripMessagesServerRecords(request)
    assert.deepEqual(stripped.messages[1], {
      role: 'assistant',
      content: [{ type: 'text', text: 'Refunded.' }],
    })
    assert.deepEqual(stripped.tools?.[1], { name: 'a', input_schema: { type: 'object' } })
    assert.ok(!('mcp_servers' in stripped))
    assert.equal(request.messages[1]?.content.length, 3)
  })

  it('drops an assistant turn that held only searches; its neighbours stay valid', () => {
    const stripped = stripMessagesServerRecords(
      messages({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [use('srv_1'), result('srv_1')] },
          { role: 'user', content: 'y' },
        ],
      }),
    )
    assert.deepEqual(stripped.messages, [
      { role: 'user', content: 'x' },
      { role: 'user', content: 'y' },
    ])
    assert.ok(validateMessagesRequest(stripped).ok)
  })

  it('keeps a short text block when the searches were the whole conversation', () => {
    const stripped = stripMessagesServerRecords(
      messages({ messages: [{ role: 'assistant', content: [use('srv_1'), result('srv_1')] }] }),
    )
    assert.equal(stripped.messages.length, 1)
    const check = validateMessagesRequest(stripped)
    assert.ok(check.ok, check.ok ? '' : check.problem.message)
    assert.equal(JSON.stringify(stripped).includes('server_tool_use'), false)
  })
})
