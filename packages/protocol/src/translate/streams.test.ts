import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChatCompletionChunk } from '../chat/types.js'
import type { MessagesStreamEvent } from '../messages/types.js'
import { ChatToMessagesStream } from './chat-to-messages-stream.js'
import { MessagesToChatStream } from './messages-to-chat-stream.js'
import {
  CHAT_CUT_SHORT,
  CHAT_TEXT_THEN_TOOLS,
  chatChunk,
  MESSAGES_TEXT_THEN_TOOLS,
  MESSAGES_THINKING_THEN_TEXT,
} from './test-support.js'

function toMessages(chunks: ChatCompletionChunk[], id?: string): MessagesStreamEvent[] {
  const stream = new ChatToMessagesStream('Syntic Code', id)
  return [...chunks.flatMap((chunk) => stream.push(chunk)), ...stream.finish()]
}

function toChat(events: MessagesStreamEvent[], includeUsage = true): ChatCompletionChunk[] {
  const stream = new MessagesToChatStream('Syntic Code', undefined, { includeUsage })
  return [...events.flatMap((event) => stream.push(event)), ...stream.finish()]
}

/** What a messages client rebuilds from the events: each block's text or input JSON. */
function assemble(
  events: MessagesStreamEvent[],
): { type: string; text: string; id?: string; name?: string }[] {
  const blocks: { type: string; text: string; id?: string; name?: string }[] = []
  for (const event of events) {
    if (event.type === 'content_block_start') {
      const block = event.content_block
      assert.equal(event.index, blocks.length, 'blocks are numbered in order')
      if (block.type === 'tool_use')
        blocks.push({ type: 'tool_use', text: '', id: block.id, name: block.name })
      else if (block.type === 'text') blocks.push({ type: 'text', text: block.text })
    }
    if (event.type === 'content_block_delta') {
      const block = blocks[event.index]!
      if (event.delta.type === 'text_delta') block.text += event.delta.text
      if (event.delta.type === 'input_json_delta') block.text += event.delta.partial_json
    }
  }
  return blocks
}

/** What a chat client rebuilds from the chunks. */
function accumulate(chunks: ChatCompletionChunk[]) {
  let content = ''
  let role: string | undefined
  let finish: string | null = null
  const calls: { id?: string; type?: string; name: string; arguments: string }[] = []
  for (const chunk of chunks) {
    for (const choice of chunk.choices) {
      role ??= choice.delta.role
      content += choice.delta.content ?? ''
      for (const delta of choice.delta.tool_calls ?? []) {
        calls[delta.index] ??= { name: '', arguments: '' }
        const call = calls[delta.index]!
        if (delta.id) call.id = delta.id
        if (delta.type) call.type = delta.type
        if (delta.function?.name) call.name += delta.function.name
        call.arguments += delta.function?.arguments ?? ''
      }
      if (choice.finish_reason) finish = choice.finish_reason
    }
  }
  return { role, content, finish, calls, usage: chunks.at(-1)?.usage }
}

describe('ChatToMessagesStream', () => {
  it('turns text then two tool calls into the event sequence MessageStream expects', () => {
    const events = toMessages(CHAT_TEXT_THEN_TOOLS)
    assert.deepEqual(
      events.map((e) => (e.type === 'content_block_delta' ? `${e.type}:${e.delta.type}` : e.type)),
      [
        'message_start',
        'content_block_start',
        'content_block_delta:text_delta',
        'content_block_delta:text_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta:input_json_delta',
        'content_block_delta:input_json_delta',
        'content_block_delta:input_json_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta:input_json_delta',
        'content_block_delta:input_json_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    )
    const start = events[0]!
    assert.ok(start.type === 'message_start')
    assert.equal(start.message.id, 'chatcmpl-rec1')
    assert.equal(start.message.model, 'Syntic Code')
    assert.deepEqual(start.message.content, [])
    assert.deepEqual(start.message.usage, { input_tokens: 0, output_tokens: 0 })
    const blocks = assemble(events)
    assert.deepEqual(blocks, [
      { type: 'text', text: 'Let me check both cities.' },
      { type: 'tool_use', text: '{"city": "Paris"}', id: 'call_Paris1', name: 'get_weather' },
      {
        type: 'tool_use',
        text: '{"city": "Rome", "units": ["c"]}',
        id: 'call_Rome22',
        name: 'get_weather',
      },
    ])
    assert.deepEqual(JSON.parse(blocks[2]!.text), { city: 'Rome', units: ['c'] })
    const delta = events.at(-2)!
    assert.ok(delta.type === 'message_delta')
    assert.deepEqual(delta.delta, { stop_reason: 'tool_use', stop_sequence: null })
    assert.deepEqual(delta.usage, {
      input_tokens: 20,
      output_tokens: 45,
      cache_read_input_tokens: 100,
    })
  })

  it('ends a stream without a finish reason as end_turn, with its text whole', () => {
    const events = toMessages(CHAT_CUT_SHORT, 'msg_given')
    const start = events[0]!
    assert.ok(start.type === 'message_start' && start.message.id === 'msg_given')
    assert.deepEqual(assemble(events), [{ type: 'text', text: 'Partial answer' }])
    const delta = events.find((e) => e.type === 'message_delta')
    assert.ok(delta?.type === 'message_delta' && delta.delta.stop_reason === 'end_turn')
    assert.equal(events.at(-1)!.type, 'message_stop')
    assert.equal(events.filter((e) => e.type === 'content_block_stop').length, 1)
  })

  it('ends a cut-off stream with tool calls as tool_use', () => {
    const events = toMessages(CHAT_TEXT_THEN_TOOLS.slice(0, 8))
    const delta = events.find((e) => e.type === 'message_delta')
    assert.ok(delta?.type === 'message_delta' && delta.delta.stop_reason === 'tool_use')
  })

  it('maps each finish reason', () => {
    const cases = [
      ['stop', 'end_turn'],
      ['length', 'max_tokens'],
      ['content_filter', 'refusal'],
      ['tool_calls', 'tool_use'],
    ] as const
    for (const [finish, stop] of cases) {
      const events = toMessages([chatChunk({ content: 'x' }), chatChunk({}, finish)])
      const delta = events.find((e) => e.type === 'message_delta')
      assert.ok(delta?.type === 'message_delta')
      assert.equal(delta.delta.stop_reason, stop)
    }
  })

  it('sends only message_start, message_delta and message_stop for an empty stream', () => {
    const events = toMessages([])
    assert.deepEqual(
      events.map((e) => e.type),
      ['message_start', 'message_delta', 'message_stop'],
    )
    const start = events[0]!
    assert.ok(start.type === 'message_start')
    assert.match(start.message.id, /^msg_[A-Za-z0-9]{24}$/)
  })

  it('holds a tool call until its name arrives, and makes up a toolu_ id when none came', () => {
    const events = toMessages([
      chatChunk({ role: 'assistant' }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }),
      chatChunk({ tool_calls: [{ index: 0, function: { name: 'late_name', arguments: '1}' } }] }),
      chatChunk({}, 'tool_calls'),
    ])
    const blocks = assemble(events)
    assert.equal(blocks.length, 1)
    assert.equal(blocks[0]!.name, 'late_name')
    assert.match(blocks[0]!.id!, /^toolu_/)
    assert.equal(blocks[0]!.text, '{"a":1}')
  })

  it('still assembles each input when an upstream interleaves two tool calls', () => {
    const events = toMessages([
      chatChunk({
        tool_calls: [
          { index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x"' } },
        ],
      }),
      chatChunk({
        tool_calls: [
          { index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{"y"' } },
        ],
      }),
      chatChunk({
        tool_calls: [
          { index: 0, function: { arguments: ':1}' } },
          { index: 1, function: { arguments: ':2}' } },
        ],
      }),
      chatChunk({}, 'tool_calls'),
    ])
    const inputs = assemble(events).map((b) => JSON.parse(b.text))
    assert.deepEqual(inputs, [{ x: 1 }, { y: 2 }])
  })

  it('streams the legacy function_call delta as a tool call', () => {
    const events = toMessages([
      chatChunk({ role: 'assistant', function_call: { name: 'f', arguments: '' } }),
      chatChunk({ function_call: { arguments: '{"q":1}' } }),
      chatChunk({}, 'function_call'),
    ])
    assert.deepEqual(
      assemble(events).map((b) => [b.name, b.text]),
      [['f', '{"q":1}']],
    )
  })

  it('returns nothing after finish, and finish only once', () => {
    const stream = new ChatToMessagesStream('m')
    stream.push(chatChunk({ content: 'x' }))
    assert.ok(stream.finish().length > 0)
    assert.deepEqual(stream.finish(), [])
    assert.deepEqual(stream.push(chatChunk({ content: 'y' })), [])
  })
})

describe('MessagesToChatStream', () => {
  it('turns text then two tool_use blocks into the chunks ChatCompletionStream expects', () => {
    const chunks = toChat(MESSAGES_TEXT_THEN_TOOLS)
    assert.ok(chunks.every((c) => c.id === 'msg_01Rec' && c.object === 'chat.completion.chunk'))
    assert.ok(chunks.every((c) => c.model === 'Syntic Code' && c.created === chunks[0]!.created))
    assert.deepEqual(chunks[0]!.choices[0]!.delta, { role: 'assistant', content: '' })
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
    assert.deepEqual(toolDeltas, [
      {
        index: 0,
        id: 'toolu_01Paris',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
      { index: 0, function: { arguments: '{"city": "P' } },
      { index: 0, function: { arguments: 'aris"}' } },
      {
        index: 1,
        id: 'toolu_01Rome',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
      { index: 1, function: { arguments: '{"city": "Rome",' } },
      { index: 1, function: { arguments: ' "units": ["c"]}' } },
    ])
    const result = accumulate(chunks)
    assert.equal(result.role, 'assistant')
    assert.equal(result.content, 'Let me check both cities.')
    assert.equal(result.finish, 'tool_calls')
    assert.deepEqual(JSON.parse(result.calls[1]!.arguments), { city: 'Rome', units: ['c'] })
    const finishChunk = chunks.at(-2)!
    assert.deepEqual(finishChunk.choices, [
      { index: 0, delta: {}, finish_reason: 'tool_calls', logprobs: null },
    ])
    const usage = chunks.at(-1)!
    assert.deepEqual(usage.choices, [])
    assert.deepEqual(usage.usage, {
      prompt_tokens: 230,
      completion_tokens: 58,
      total_tokens: 288,
      prompt_tokens_details: { cached_tokens: 200 },
    })
  })

  it('drops thinking, keeps text given in content_block_start, and maps max_tokens to length', () => {
    const result = accumulate(toChat(MESSAGES_THINKING_THEN_TEXT))
    assert.equal(result.content, 'Hello, world')
    assert.equal(result.finish, 'length')
  })

  it('omits the usage chunk when asked', () => {
    const chunks = toChat(MESSAGES_TEXT_THEN_TOOLS, false)
    assert.ok(chunks.every((c) => c.choices.length === 1 && c.usage === undefined))
    assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, 'tool_calls')
  })

  it('finishes a stream that ended before message_stop', () => {
    const cut = MESSAGES_TEXT_THEN_TOOLS.slice(0, 9)
    const result = accumulate(toChat(cut))
    assert.equal(result.finish, 'tool_calls')
    assert.equal(result.calls[0]!.arguments, '{"city": "P')
    const textOnly = accumulate(toChat(MESSAGES_TEXT_THEN_TOOLS.slice(0, 4)))
    assert.equal(textOnly.finish, 'stop')
    assert.equal(textOnly.content, 'Let me check ')
  })

  it('starts with the role chunk even without message_start, under a new chatcmpl- id', () => {
    const chunks = toChat([
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
    ])
    assert.equal(chunks[0]!.choices[0]!.delta.role, 'assistant')
    assert.match(chunks[0]!.id, /^chatcmpl-[A-Za-z0-9]{24}$/)
    assert.equal(accumulate(chunks).content, 'hi')
  })

  it('yields nothing for ping and error events and skips empty deltas', () => {
    const stream = new MessagesToChatStream('m', 'chatcmpl-given')
    assert.equal(stream.push(MESSAGES_TEXT_THEN_TOOLS[0]!).length, 1)
    assert.deepEqual(stream.push({ type: 'ping' }), [])
    assert.deepEqual(
      stream.push({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      [],
    )
    assert.deepEqual(
      stream.push({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: '' },
      }),
      [],
    )
    const end = stream.finish()
    assert.ok(end.every((c) => c.id === 'chatcmpl-given'))
    assert.deepEqual(stream.finish(), [])
    assert.deepEqual(stream.push({ type: 'message_stop' }), [])
  })

  it('round trips: chat -> messages -> chat keeps text, tool calls and the finish reason', () => {
    const events = toMessages(CHAT_TEXT_THEN_TOOLS)
    const back = accumulate(toChat(events))
    const original = accumulate(CHAT_TEXT_THEN_TOOLS)
    assert.equal(back.content, original.content)
    assert.equal(back.finish, original.finish)
    assert.deepEqual(
      back.calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]),
      original.calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]),
    )
    assert.deepEqual(back.usage, {
      prompt_tokens: 120,
      completion_tokens: 45,
      total_tokens: 165,
      prompt_tokens_details: { cached_tokens: 100 },
    })
  })
})

describe('streams fed malformed upstream data', () => {
  const GARBAGE: unknown[] = [
    null,
    42,
    'data',
    [],
    {},
    { choices: 'none' },
    { choices: [null, { index: 0, delta: null }] },
    { choices: [{ index: 0, delta: { content: 7, tool_calls: 'x' } }] },
    { choices: [{ index: 0, delta: { tool_calls: [null, 5, { index: 0, function: 'f' }] } }] },
    {
      choices: [
        { index: 0, delta: { tool_calls: [{ index: 0, function: { name: 3, arguments: {} } }] } },
      ],
    },
    { type: 'message_start' },
    { type: 'message_start', message: { usage: { input_tokens: 'many' } } },
    { type: 'content_block_start', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', input: 'x' } },
    { type: 'content_block_delta', index: 1 },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 5 } },
    { type: 'message_delta' },
    { type: 'message_delta', delta: null, usage: { output_tokens: null } },
  ]

  it('ChatToMessagesStream skips what it cannot read and still ends well-formed', () => {
    const stream = new ChatToMessagesStream('m')
    const events = [
      ...GARBAGE.flatMap((chunk) => stream.push(chunk as ChatCompletionChunk)),
      ...stream.finish(),
    ]
    assert.equal(events[0]!.type, 'message_start')
    assert.equal(events.at(-1)!.type, 'message_stop')
    const delta = events.at(-2)!
    assert.ok(delta.type === 'message_delta')
    assert.ok(Number.isFinite(delta.usage.output_tokens))
    assert.doesNotThrow(() => JSON.stringify(events))
  })

  it('MessagesToChatStream skips what it cannot read and still ends well-formed', () => {
    const stream = new MessagesToChatStream('m')
    const chunks = [
      ...GARBAGE.flatMap((event) => stream.push(event as MessagesStreamEvent)),
      ...stream.finish(),
    ]
    assert.equal(chunks[0]!.choices[0]!.delta.role, 'assistant')
    const usage = chunks.at(-1)!.usage!
    assert.deepEqual(usage, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 })
    assert.ok(chunks.at(-2)!.choices[0]!.finish_reason)
  })
})
