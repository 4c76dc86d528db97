import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ChatCompletionChunk, ChatDelta } from '@syntic/protocol'
import { ChunkWriter } from './chunk-writer.js'
import { readStreamTurn } from './stream-turn.js'

function chunk(
  delta: ChatDelta,
  finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null,
): ChatCompletionChunk {
  return {
    id: 'up',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'u',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }
}

async function* from(chunks: unknown[]): AsyncGenerator<ChatCompletionChunk> {
  for (const c of chunks) yield c as ChatCompletionChunk
}

test('server tool calls are held back; client calls are forwarded once named, renumbered', async () => {
  const sent: ChatCompletionChunk[] = []
  const writer = new ChunkWriter('chatcmpl-x', 5, 'Model', (c) => {
    sent.push(c)
    return undefined
  })
  const turn = await readStreamTurn(
    from([
      chunk({ role: 'assistant', content: 'Hi' }),
      chunk({
        tool_calls: [
          {
            index: 0,
            id: 's1',
            type: 'function',
            function: { name: 'syntic_tool_search', arguments: '{"qu' },
          },
        ],
      }),
      chunk({ tool_calls: [{ index: 1, id: 'c1', function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ery":"x"}' } }] }),
      chunk({
        tool_calls: [
          { index: 1, type: 'function', function: { name: 'get_order', arguments: ':1}' } },
        ],
      }),
      chunk({}, 'tool_calls'),
      { id: 'up', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
      null,
      { choices: [{ index: 1, delta: { content: 'other choice' } }] },
    ]),
    writer,
    (name) => name === 'syntic_tool_search',
    '\n\n',
  )
  assert.equal(turn.content, 'Hi')
  assert.deepEqual(
    turn.toolCalls.map(
      (c) => c.type === 'function' && [c.id, c.function.name, c.function.arguments],
    ),
    [
      ['s1', 'syntic_tool_search', '{"query":"x"}'],
      ['c1', 'get_order', '{"a":1}'],
    ],
  )
  assert.equal(turn.finishReason, 'tool_calls')
  assert.equal(turn.usage?.completion_tokens, 4)
  for (const c of sent) {
    assert.equal(c.id, 'chatcmpl-x')
    assert.equal(c.model, 'Model')
  }
  const deltas = sent.map((c) => c.choices[0]!.delta)
  assert.deepEqual(deltas[0], { role: 'assistant', content: '' })
  assert.deepEqual(deltas[1], { content: '\n\nHi' })
  assert.deepEqual(deltas.slice(2), [
    {
      tool_calls: [
        {
          index: 0,
          id: 'c1',
          type: 'function',
          function: { name: 'get_order', arguments: '{"a":1}' },
        },
      ],
    },
  ])
  assert.ok(
    sent.every((c) => c.choices[0]!.finish_reason === null),
    'the finish is the loop’s to send',
  )
})

test('a streamed turn past the size bound fails as an upstream error instead of growing', async () => {
  const writer = new ChunkWriter('chatcmpl-x', 5, 'Model', () => undefined)
  // 17 pieces of 4 MiB of tool arguments: past the 64 MiB a turn may hold.
  const piece = 'x'.repeat(4 * 1024 * 1024)
  const chunks = [
    chunk({
      tool_calls: [
        { index: 0, id: 'c1', type: 'function', function: { name: 'lookup', arguments: '' } },
      ],
    }),
    ...Array.from({ length: 17 }, () =>
      chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }),
    ),
  ]
  await assert.rejects(
    readStreamTurn(from(chunks), writer, () => false, ''),
    (error: Error & { code?: string; status?: number }) =>
      error.code === 'upstream_error' && error.status === 502,
  )
})
