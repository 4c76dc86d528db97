import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ChatCompletion } from '@syntic/protocol'
import { addUsage, turnFromCompletion } from './turn.js'

test('usage is summed over turns, details included', () => {
  let sum = addUsage(undefined, { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 })
  sum = addUsage(sum, undefined)
  sum = addUsage(sum, {
    prompt_tokens: 30,
    completion_tokens: 5,
    total_tokens: 35,
    prompt_tokens_details: { cached_tokens: 8 },
  })
  assert.deepEqual(sum, {
    prompt_tokens: 40,
    completion_tokens: 7,
    total_tokens: 47,
    prompt_tokens_details: { cached_tokens: 8 },
  })
})

test('a completion with malformed tool calls keeps only the well-formed ones', () => {
  const completion = {
    id: 'x',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        logprobs: null,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 7 } },
            null,
            'call',
          ],
        },
      },
    ],
    usage: { prompt_tokens: 'many' },
  } as unknown as ChatCompletion
  const turn = turnFromCompletion(completion)
  assert.equal(turn.toolCalls.length, 1)
  assert.equal(turn.content, '')
  assert.equal(turn.usage, undefined)
  assert.equal(turn.finishReason, 'tool_calls')
})
