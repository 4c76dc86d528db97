import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChatCompletion, ChatFinishReason, ChatResponseMessage } from '../chat/types.js'
import type { MessagesResponse, MessagesStopReason } from '../messages/types.js'
import { chatResponseToMessages, messagesResponseToChat } from './responses.js'
import { RAW_ARGUMENTS_KEY } from './tool-arguments.js'

function completion(
  message: Partial<ChatResponseMessage>,
  finish_reason: ChatFinishReason = 'stop',
  over: Partial<ChatCompletion> = {},
): ChatCompletion {
  return {
    id: 'chatcmpl-abc123',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'upstream-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null, ...message },
        finish_reason,
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    ...over,
  }
}

function response(
  content: MessagesResponse['content'],
  stop_reason: MessagesStopReason | null = 'end_turn',
  over: Partial<MessagesResponse> = {},
): MessagesResponse {
  return {
    id: 'msg_01XYZ',
    type: 'message',
    role: 'assistant',
    model: 'upstream-model',
    content,
    stop_reason,
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20 },
    ...over,
  }
}

const call = (id: string, args: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'get_weather', arguments: args },
})

describe('chatResponseToMessages', () => {
  it('translates text, keeps the upstream id and sets the public model name', () => {
    const result = chatResponseToMessages(completion({ content: 'Hello!' }), 'Syntic Code')
    assert.deepEqual(result, {
      id: 'chatcmpl-abc123',
      type: 'message',
      role: 'assistant',
      model: 'Syntic Code',
      content: [{ type: 'text', text: 'Hello!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 20 },
    })
  })

  const REASONS: [ChatFinishReason, boolean, MessagesStopReason][] = [
    ['stop', false, 'end_turn'],
    ['length', false, 'max_tokens'],
    ['tool_calls', true, 'tool_use'],
    ['content_filter', false, 'refusal'],
    ['function_call', true, 'tool_use'],
    ['stop', true, 'tool_use'],
    ['length', true, 'max_tokens'],
  ]
  for (const [finish, withCalls, stop] of REASONS) {
    it(`finish_reason ${finish}${withCalls ? ' with tool calls' : ''} -> ${stop}`, () => {
      const message: Partial<ChatResponseMessage> = withCalls
        ? finish === 'function_call'
          ? { function_call: { name: 'f', arguments: '{}' } }
          : { tool_calls: [call('call_1', '{}')] }
        : { content: 'x' }
      assert.equal(chatResponseToMessages(completion(message, finish), 'm').stop_reason, stop)
    })
  }

  it('turns tool calls into tool_use blocks with parsed input, ids unchanged', () => {
    const result = chatResponseToMessages(
      completion(
        {
          content: 'Checking both.',
          tool_calls: [
            call('call_Paris', '{"city":"Paris","units":["c"]}'),
            call('toolu_from_upstream', '{}'),
            { id: 'call_sql', type: 'custom', custom: { name: 'sql', input: 'SELECT 1' } },
          ],
        },
        'tool_calls',
      ),
      'm',
    )
    assert.deepEqual(result.content, [
      { type: 'text', text: 'Checking both.' },
      {
        type: 'tool_use',
        id: 'call_Paris',
        name: 'get_weather',
        input: { city: 'Paris', units: ['c'] },
      },
      { type: 'tool_use', id: 'toolu_from_upstream', name: 'get_weather', input: {} },
      { type: 'tool_use', id: 'call_sql', name: 'sql', input: { input: 'SELECT 1' } },
    ])
  })

  it('keeps invalid JSON arguments raw under the documented key', () => {
    for (const args of ['{"city": "Par', 'not json', '"a string"', '42', 'null']) {
      const result = chatResponseToMessages(completion({ tool_calls: [call('call_1', args)] }), 'm')
      assert.deepEqual(result.content[0], {
        type: 'tool_use',
        id: 'call_1',
        name: 'get_weather',
        input: { [RAW_ARGUMENTS_KEY]: args },
      })
      const back = messagesResponseToChat(result, 'm')
      assert.equal(back.choices[0]!.message.tool_calls![0]!.type, 'function')
      const fn = back.choices[0]!.message.tool_calls![0] as { function: { arguments: string } }
      assert.equal(fn.function.arguments, args, 'the raw text comes back exactly')
    }
  })

  it('moves cached prompt tokens out of input_tokens', () => {
    const result = chatResponseToMessages(
      completion({ content: 'x' }, 'stop', {
        usage: {
          prompt_tokens: 1000,
          completion_tokens: 50,
          total_tokens: 1050,
          prompt_tokens_details: { cached_tokens: 800, cache_write_tokens: 150 },
        },
      }),
      'm',
    )
    assert.deepEqual(result.usage, {
      input_tokens: 50,
      output_tokens: 50,
      cache_read_input_tokens: 800,
      cache_creation_input_tokens: 150,
    })
  })

  it('keeps a refusal as text, and survives an empty or id-less completion', () => {
    const refused = chatResponseToMessages(completion({ refusal: 'I cannot help.' }, 'stop'), 'm')
    assert.deepEqual(refused.content, [{ type: 'text', text: 'I cannot help.' }])
    const empty = chatResponseToMessages({ ...completion({}), id: '', choices: [] }, 'm')
    assert.match(empty.id, /^msg_[A-Za-z0-9]{24}$/)
    assert.deepEqual(empty.content, [])
    assert.equal(empty.stop_reason, 'end_turn')
    const noUsage = chatResponseToMessages(
      { ...completion({ content: 'x' }), usage: undefined },
      'm',
    )
    assert.deepEqual(noUsage.usage, { input_tokens: 0, output_tokens: 0 })
  })
})

describe('messagesResponseToChat', () => {
  it('translates text and tool use, keeping ids', () => {
    const result = messagesResponseToChat(
      response(
        [
          { type: 'thinking', thinking: 'Two calls.', signature: 's' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'get_weather', input: {} },
        ],
        'tool_use',
      ),
      'Syntic Code',
    )
    assert.equal(result.id, 'msg_01XYZ')
    assert.equal(result.object, 'chat.completion')
    assert.equal(result.model, 'Syntic Code')
    assert.ok(Number.isInteger(result.created))
    assert.deepEqual(result.choices, [
      {
        index: 0,
        finish_reason: 'tool_calls',
        logprobs: null,
        message: {
          role: 'assistant',
          content: 'Checking.',
          refusal: null,
          tool_calls: [
            {
              id: 'toolu_01A',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'toolu_01B',
              type: 'function',
              function: { name: 'get_weather', arguments: '{}' },
            },
          ],
        },
      },
    ])
    assert.deepEqual(result.usage, { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 })
  })

  const REASONS: [MessagesStopReason | null, ChatFinishReason][] = [
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    [null, 'stop'],
  ]
  for (const [stop, finish] of REASONS) {
    it(`stop_reason ${stop} -> ${finish}`, () => {
      const result = messagesResponseToChat(response([{ type: 'text', text: 'x' }], stop), 'm')
      assert.equal(result.choices[0]!.finish_reason, finish)
    })
  }

  it('sets content null when there is only tool use, and counts cache tokens into the prompt', () => {
    const result = messagesResponseToChat(
      response([{ type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } }], 'tool_use', {
        usage: {
          input_tokens: 10,
          output_tokens: 5,
          cache_read_input_tokens: 900,
          cache_creation_input_tokens: 90,
        },
      }),
      'm',
    )
    assert.equal(result.choices[0]!.message.content, null)
    assert.deepEqual(result.usage, {
      prompt_tokens: 1000,
      completion_tokens: 5,
      total_tokens: 1005,
      prompt_tokens_details: { cached_tokens: 900, cache_write_tokens: 90 },
    })
  })

  it('gives a new chatcmpl- id when the upstream had none', () => {
    const result = messagesResponseToChat(response([], 'end_turn', { id: '' }), 'm')
    assert.match(result.id, /^chatcmpl-[A-Za-z0-9]{24}$/)
    assert.equal(result.choices[0]!.message.content, '')
  })

  it('round trips: messages -> chat -> messages keeps text, tools, reason and usage', () => {
    const original = response(
      [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo', days: 3 } },
      ],
      'tool_use',
      { usage: { input_tokens: 40, output_tokens: 9, cache_read_input_tokens: 60 } },
    )
    const back = chatResponseToMessages(messagesResponseToChat(original, 'm'), 'upstream-model')
    assert.deepEqual(back, original)
  })
})

describe('responses from a malformed upstream', () => {
  const GARBAGE: unknown[] = [
    null,
    {},
    { choices: 'x', content: 'x', usage: 'x' },
    { choices: [null] },
    {
      choices: [
        { message: { content: 5, tool_calls: [null, { function: null }, { type: 'custom' }] } },
      ],
    },
    {
      content: [null, 5, { type: 'tool_use' }, { type: 'text', text: 9 }],
      usage: { input_tokens: -3 },
    },
  ]
  it('never throws and returns well-formed responses', () => {
    for (const body of GARBAGE) {
      const messages = chatResponseToMessages(body as ChatCompletion, 'm')
      assert.equal(messages.type, 'message')
      assert.ok(Array.isArray(messages.content))
      assert.ok(Number.isFinite(messages.usage.input_tokens))
      const chat = messagesResponseToChat(body as MessagesResponse, 'm')
      assert.equal(chat.choices.length, 1)
      assert.ok(Number.isFinite(chat.usage!.total_tokens) && chat.usage!.total_tokens >= 0)
    }
  })
})
