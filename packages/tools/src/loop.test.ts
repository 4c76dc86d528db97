import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ToolHandler } from './handler.js'
import { runToolCalls, runToolUses } from './loop.js'
import { success } from './result.js'

const order: string[] = []
const echo: ToolHandler = {
  name: 'syntic_memory',
  async run(input) {
    order.push(JSON.stringify(input))
    return success(`ran ${JSON.stringify(input)}`)
  },
}

describe('tool-call loop helper', () => {
  it('answers every chat tool call in order', async () => {
    order.length = 0
    const messages = await runToolCalls(
      [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'syntic_memory', arguments: '{"command":"list"}' },
        },
        { id: 'call_2', type: 'function', function: { name: 'syntic_memory', arguments: '' } },
      ],
      [echo],
    )
    assert.deepEqual(messages, [
      { role: 'tool', tool_call_id: 'call_1', content: 'ran {"command":"list"}' },
      { role: 'tool', tool_call_id: 'call_2', content: 'ran {}' },
    ])
    assert.deepEqual(order, ['{"command":"list"}', '{}'])
  })

  it('answers bad JSON and unknown tools with error text', async () => {
    const messages = await runToolCalls(
      [
        { id: 'a', function: { name: 'syntic_memory', arguments: '{"command":' } },
        { id: 'b', function: { name: 'nope', arguments: '{}' } },
      ],
      [echo],
    )
    assert.match(messages[0]?.content ?? '', /^Error: the tool arguments are not valid JSON/)
    assert.equal(
      messages[1]?.content,
      'Error: unknown tool "nope"; the available tools are syntic_memory',
    )
    assert.deepEqual(await runToolCalls(undefined, [echo]), [])
  })

  it('answers tool_use blocks with tool_result blocks', async () => {
    const results = await runToolUses(
      [
        { type: 'text', text: 'let me look' } as { type: string },
        { type: 'tool_use', id: 'tu_1', name: 'syntic_memory', input: { command: 'list' } } as {
          type: string
        },
        { type: 'tool_use', id: 'tu_2', name: 'other', input: {} } as { type: string },
      ],
      [echo],
    )
    assert.deepEqual(results[0], {
      type: 'tool_result',
      tool_use_id: 'tu_1',
      content: 'ran {"command":"list"}',
    })
    assert.equal(results[1]?.is_error, true)
  })
})
