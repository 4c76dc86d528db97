import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChatCompletionRequest } from '../chat/types.js'
import { validateChatRequest } from '../chat/validate.js'
import type { MessagesRequest } from '../messages/types.js'
import { validateMessagesRequest } from '../messages/validate.js'
import { chatRequestToMessages, DEFAULT_MAX_TOKENS } from './chat-request-to-messages.js'
import { messagesRequestToChat } from './messages-request-to-chat.js'
import { RAW_ARGUMENTS_KEY } from './tool-arguments.js'

function messages(body: Record<string, unknown>): MessagesRequest {
  const check = validateMessagesRequest({ model: 'Syntic Code', max_tokens: 1000, ...body })
  assert.ok(check.ok, check.ok ? '' : `${check.problem.param}: ${check.problem.message}`)
  return check.value
}

function chat(body: Record<string, unknown>): ChatCompletionRequest {
  const check = validateChatRequest({ model: 'Syntic Code', ...body })
  assert.ok(check.ok, check.ok ? '' : `${check.problem.param}: ${check.problem.message}`)
  return check.value
}

/** A translated request must pass the other endpoint's validator. */
function assertValidChat(request: ChatCompletionRequest): void {
  const check = validateChatRequest(request)
  assert.ok(check.ok, check.ok ? '' : `${check.problem.param}: ${check.problem.message}`)
}

function assertValidMessages(request: MessagesRequest): void {
  const check = validateMessagesRequest(request)
  assert.ok(check.ok, check.ok ? '' : `${check.problem.param}: ${check.problem.message}`)
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'
const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

/** A messages conversation using every translatable feature, written the canonical way. */
const CONVERSATION = {
  system: 'You are a weather bot.',
  stop_sequences: ['END'],
  temperature: 0.3,
  top_p: 0.9,
  tools: [weatherTool, { type: 'syntic_shell', max_output_chars: 20000 }],
  tool_choice: { type: 'auto' },
  messages: [
    {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/sky.jpg' } },
        { type: 'text', text: 'What is the weather in these two cities?' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me check both.' },
        { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_01B', name: 'get_weather', input: { city: 'Rome' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'Rain, 12 C' },
        { type: 'tool_result', tool_use_id: 'toolu_01B', content: 'Sun, 24 C' },
        { type: 'text', text: 'Which is warmer?' },
      ],
    },
    { role: 'assistant', content: 'Rome is warmer.' },
    { role: 'user', content: 'Thanks.' },
  ],
}

describe('messagesRequestToChat', () => {
  it('translates system, images, tool use and several tool results', () => {
    const result = messagesRequestToChat(messages(CONVERSATION))
    assertValidChat(result)
    assert.deepEqual(result.messages, [
      { role: 'system', content: 'You are a weather bot.' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'image_url', image_url: { url: 'https://example.com/sky.jpg' } },
          { type: 'text', text: 'What is the weather in these two cities?' },
        ],
      },
      {
        role: 'assistant',
        content: 'Let me check both.',
        tool_calls: [
          {
            id: 'toolu_01A',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'toolu_01B',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01A', content: 'Rain, 12 C' },
      { role: 'tool', tool_call_id: 'toolu_01B', content: 'Sun, 24 C' },
      { role: 'user', content: 'Which is warmer?' },
      { role: 'assistant', content: 'Rome is warmer.' },
      { role: 'user', content: 'Thanks.' },
    ])
    assert.deepEqual(result.stop, ['END'])
    assert.equal(result.max_tokens, 1000)
    assert.equal(result.temperature, 0.3)
    assert.equal(result.top_p, 0.9)
    assert.equal(result.tool_choice, 'auto')
    assert.deepEqual(result.tools, [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather for a city',
          parameters: weatherTool.input_schema,
        },
      },
      { type: 'syntic_shell', max_output_chars: 20000 },
    ])
  })

  it('maps tool_choice any/tool/none and disable_parallel_tool_use', () => {
    const cases: [unknown, unknown, boolean | undefined][] = [
      [{ type: 'any' }, 'required', undefined],
      [{ type: 'none' }, 'none', undefined],
      [{ type: 'auto', disable_parallel_tool_use: true }, 'auto', false],
      [
        { type: 'tool', name: 'get_weather' },
        { type: 'function', function: { name: 'get_weather' } },
        undefined,
      ],
      [{ type: 'any', disable_parallel_tool_use: true }, 'required', false],
    ]
    for (const [choice, expected, parallel] of cases) {
      const result = messagesRequestToChat(messages({ ...CONVERSATION, tool_choice: choice }))
      assert.deepEqual(result.tool_choice, expected)
      assert.equal(result.parallel_tool_calls, parallel)
      assertValidChat(result)
    }
  })

  it('puts images of a tool result in a user message after the tool messages', () => {
    const result = messagesRequestToChat(
      messages({
        messages: [
          { role: 'user', content: 'Show the radar.' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'radar', input: {} }],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                is_error: false,
                content: [
                  { type: 'text', text: 'Radar image:' },
                  { type: 'image', source: { type: 'url', url: 'https://x/radar.png' } },
                ],
              },
            ],
          },
        ],
      }),
    )
    assertValidChat(result)
    assert.deepEqual(result.messages.slice(1), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'radar', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Radar image:' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/radar.png' } }] },
    ])
  })

  it('marks error results in the text, once', () => {
    const turn = (content: string) =>
      messagesRequestToChat(
        messages({
          messages: [
            { role: 'user', content: 'Run it.' },
            {
              role: 'assistant',
              content: [{ type: 'tool_use', id: 'toolu_1', name: 'run', input: {} }],
            },
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content }],
            },
          ],
        }),
      ).messages[2]
    assert.deepEqual(turn('timed out'), {
      role: 'tool',
      tool_call_id: 'toolu_1',
      content: 'Error: timed out',
    })
    assert.equal(
      (turn('Error: old_text found 3 times') as { content: string }).content,
      'Error: old_text found 3 times',
    )
  })

  it('keeps system blocks with cache markers as parts, and system turns in place', () => {
    const result = messagesRequestToChat(
      messages({
        system: [
          { type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'More rules.' },
        ],
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'system', content: 'Answer in French.' },
          { role: 'user', content: 'Go' },
        ],
      }),
    )
    assert.deepEqual(result.messages, [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Rules.', prompt_cache_breakpoint: { mode: 'explicit' } },
          { type: 'text', text: 'More rules.' },
        ],
      },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Go' },
    ])
  })

  it('translates documents to file and text parts', () => {
    const result = messagesRequestToChat(
      messages({
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'document',
                source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
                title: 'a.pdf',
              },
              {
                type: 'document',
                source: { type: 'text', media_type: 'text/plain', data: 'plain notes' },
              },
              { type: 'document', source: { type: 'file', file_id: 'file_9' } },
              { type: 'image', source: { type: 'file', file_id: 'file_8' } },
            ],
          },
        ],
      }),
    )
    assertValidChat(result)
    assert.deepEqual(result.messages[0], {
      role: 'user',
      content: [
        {
          type: 'file',
          file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
        },
        { type: 'text', text: 'plain notes' },
        { type: 'file', file: { file_id: 'file_9' } },
        { type: 'file', file: { file_id: 'file_8' } },
      ],
    })
  })

  it('asks a streaming upstream for usage, passes the user id and drops what chat cannot carry', () => {
    const result = messagesRequestToChat(
      messages({
        ...CONVERSATION,
        stream: true,
        top_k: 5,
        metadata: { user_id: 'user-7' },
        thinking: { type: 'enabled', budget_tokens: 1024 },
        max_tokens: 2048,
      }),
    )
    assert.equal(result.stream, true)
    assert.deepEqual(result.stream_options, { include_usage: true })
    assert.equal(result.user, 'user-7')
    assert.ok(!('top_k' in result) && !('thinking' in result))
    assertValidChat(result)
  })

  it('drops thinking blocks and joins text around tool calls as paragraphs', () => {
    const result = messagesRequestToChat(
      messages({
        messages: [
          { role: 'user', content: 'Go' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Hmm.', signature: 's' },
              { type: 'text', text: 'Part one, ' },
              { type: 'text', text: 'continued.' },
              { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: [1, 2] } },
              { type: 'text', text: 'After the call.' },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] },
        ],
      }),
    )
    assert.equal(result.messages[1]!.content, 'Part one, continued.\n\nAfter the call.')
    assert.deepEqual(result.messages[2], { role: 'tool', tool_call_id: 'toolu_1', content: '' })
  })
})

describe('chatRequestToMessages', () => {
  it('translates system and developer messages, tool calls and several tool results', () => {
    const result = chatRequestToMessages(
      chat({
        messages: [
          { role: 'system', content: 'You are a weather bot.' },
          { role: 'developer', content: 'Use metric units.' },
          { role: 'user', content: 'Weather in Paris and Rome?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              {
                id: 'call_A',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
              {
                id: 'call_B',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_A', content: 'Rain' },
          { role: 'tool', tool_call_id: 'call_B', content: [{ type: 'text', text: 'Sun' }] },
          { role: 'user', content: 'Which is warmer?' },
        ],
      }),
    )
    assertValidMessages(result)
    assert.deepEqual(result.system, [
      { type: 'text', text: 'You are a weather bot.' },
      { type: 'text', text: 'Use metric units.' },
    ])
    assert.deepEqual(result.messages, [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_A', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_B', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_A', content: 'Rain' },
          { type: 'tool_result', tool_use_id: 'call_B', content: 'Sun' },
          { type: 'text', text: 'Which is warmer?' },
        ],
      },
    ])
    assert.equal(result.max_tokens, DEFAULT_MAX_TOKENS)
  })

  it('keeps invalid JSON arguments raw instead of failing', () => {
    const result = chatRequestToMessages(
      chat({
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a": 1' } },
              { id: 'call_2', type: 'function', function: { name: 'f', arguments: '[1,2]' } },
              { id: 'call_3', type: 'function', function: { name: 'f', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'a' },
          { role: 'tool', tool_call_id: 'call_2', content: 'b' },
          { role: 'tool', tool_call_id: 'call_3', content: 'c' },
        ],
      }),
    )
    assertValidMessages(result)
    const inputs = (result.messages[1]!.content as { input: unknown }[]).map((b) => b.input)
    assert.deepEqual(inputs, [
      { [RAW_ARGUMENTS_KEY]: '{"a": 1' },
      { [RAW_ARGUMENTS_KEY]: '[1,2]' },
      {},
    ])
    const back = messagesRequestToChat(result)
    const args = (
      back.messages[1] as { tool_calls: { function: { arguments: string } }[] }
    ).tool_calls.map((c) => c.function.arguments)
    assert.deepEqual(args, ['{"a": 1', '[1,2]', '{}'])
  })

  it('translates images from data: and https URLs', () => {
    const result = chatRequestToMessages(
      chat({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare.' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
              {
                type: 'image_url',
                image_url: { url: 'https://example.com/b.webp', detail: 'low' },
              },
            ],
          },
        ],
      }),
    )
    assertValidMessages(result)
    assert.deepEqual(result.messages[0]!.content, [
      { type: 'text', text: 'Compare.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/b.webp' } },
    ])
  })

  it('maps max tokens, stop, temperature, tool_choice and the user id', () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]
    const cases: [Record<string, unknown>, Partial<MessagesRequest>][] = [
      [{ max_tokens: 50 }, { max_tokens: 50 }],
      [{ max_tokens: 50, max_completion_tokens: 70 }, { max_tokens: 70 }],
      [{ stop: 'END' }, { stop_sequences: ['END'] }],
      [{ stop: ['\n', 'END'] }, { stop_sequences: ['END'] }],
      [{ temperature: 1.7 }, { temperature: 1 }],
      [
        { temperature: 0.4, top_p: 0.5 },
        { temperature: 0.4, top_p: 0.5 },
      ],
      [{ tools, tool_choice: 'required' }, { tool_choice: { type: 'any' } }],
      [{ tools, tool_choice: 'none' }, { tool_choice: { type: 'none' } }],
      [
        { tools, tool_choice: 'auto', parallel_tool_calls: false },
        { tool_choice: { type: 'auto', disable_parallel_tool_use: true } },
      ],
      [
        { tools, parallel_tool_calls: false },
        { tool_choice: { type: 'auto', disable_parallel_tool_use: true } },
      ],
      [
        { tools, tool_choice: { type: 'function', function: { name: 'f' } } },
        { tool_choice: { type: 'tool', name: 'f' } },
      ],
      [{ user: 'u1' }, { metadata: { user_id: 'u1' } }],
      [{ safety_identifier: 'h1' }, { metadata: { user_id: 'h1' } }],
      [{ stream: true, stream_options: { include_usage: true } }, { stream: true }],
    ]
    for (const [fields, expected] of cases) {
      const result = chatRequestToMessages(
        chat({ messages: [{ role: 'user', content: 'x' }], ...fields }),
      )
      for (const [key, value] of Object.entries(expected)) {
        assert.deepEqual(
          result[key as keyof MessagesRequest],
          value,
          `${JSON.stringify(fields)} ${key}`,
        )
      }
      assertValidMessages(result)
    }
  })

  it('leaves n > 1 to the caller and drops options without a messages field', () => {
    const result = chatRequestToMessages(
      chat({
        messages: [{ role: 'user', content: 'x' }],
        n: 3,
        seed: 1,
        presence_penalty: 1,
        response_format: { type: 'json_object' },
        logprobs: true,
      }),
    )
    assert.deepEqual(Object.keys(result).sort(), ['max_tokens', 'messages', 'model'])
  })

  it('translates function, custom and standard tools', () => {
    const result = chatRequestToMessages(
      chat({
        messages: [{ role: 'user', content: 'x' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'f',
              description: 'F',
              parameters: { type: 'object', properties: { a: { type: 'string' } } },
              strict: true,
            },
          },
          { type: 'function', function: { name: 'g' } },
          { type: 'custom', custom: { name: 'sql', description: 'Run SQL' } },
          { type: 'syntic_text_editor', root: '/workspace' },
        ],
      }),
    )
    assertValidMessages(result)
    assert.deepEqual(result.tools, [
      {
        name: 'f',
        description: 'F',
        strict: true,
        input_schema: { type: 'object', properties: { a: { type: 'string' } } },
      },
      { name: 'g', input_schema: { type: 'object', properties: {} } },
      {
        name: 'sql',
        description: 'Run SQL',
        input_schema: {
          type: 'object',
          properties: { input: { type: 'string', description: 'The tool input, as free text.' } },
          required: ['input'],
        },
      },
      { type: 'syntic_text_editor', root: '/workspace' },
    ])
  })

  it('translates legacy functions and function messages', () => {
    const result = chatRequestToMessages(
      chat({
        functions: [{ name: 'f', parameters: { type: 'object' } }],
        function_call: { name: 'f' },
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{"q":1}' } },
          { role: 'function', name: 'f', content: 'done' },
        ],
      }),
    )
    assertValidMessages(result)
    assert.deepEqual(result.tool_choice, { type: 'tool', name: 'f' })
    const use = (result.messages[1]!.content as { id: string; input: unknown }[])[0]!
    assert.deepEqual(use.input, { q: 1 })
    assert.deepEqual(result.messages[2]!.content, [
      { type: 'tool_result', tool_use_id: use.id, content: 'done' },
    ])
  })

  it('notes audio and non-PDF files, merges turns of one role and drops empty text', () => {
    const result = chatRequestToMessages(
      chat({
        messages: [
          {
            role: 'user',
            content: [{ type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } }],
          },
          {
            role: 'user',
            content: [
              { type: 'file', file: { file_data: 'data:text/csv;base64,YQ==', filename: 'a.csv' } },
              { type: 'text', text: '' },
            ],
          },
          { role: 'assistant', content: '' },
          { role: 'user', content: 'Well?' },
        ],
      }),
    )
    assertValidMessages(result)
    assert.deepEqual(result.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: '[audio input omitted: this model takes no audio]' },
          { type: 'text', text: '[file a.csv omitted: this model takes PDF files only]' },
          { type: 'text', text: 'Well?' },
        ],
      },
    ])
  })
})

describe('round trips', () => {
  it('messages -> chat -> messages keeps the conversation', () => {
    const original = messages(CONVERSATION)
    const back = chatRequestToMessages(messagesRequestToChat(original))
    assertValidMessages(back)
    assert.deepEqual(back, { model: 'Syntic Code', max_tokens: 1000, ...CONVERSATION })
  })

  it('chat -> messages -> chat keeps the conversation', () => {
    const original = chat({
      max_tokens: 300,
      stop: ['END'],
      temperature: 0.5,
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
        },
        { type: 'syntic_memory' },
      ],
      tool_choice: 'required',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${PNG}` } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Snow' },
        { role: 'assistant', content: 'It snows.' },
      ],
    })
    const back = messagesRequestToChat(chatRequestToMessages(original))
    assertValidChat(back)
    assert.deepEqual(back, original)
  })

  it('never throws on hostile but valid input', () => {
    let deep: unknown = 1
    for (let i = 0; i < 120; i++) deep = { a: deep }
    const request = messages({
      messages: [
        { role: 'user', content: 'x'.repeat(1_000_000) },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: { deep } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '' }] },
      ],
    })
    const back = chatRequestToMessages(messagesRequestToChat(request))
    assert.deepEqual((back.messages[1]!.content as { input: unknown }[])[0]!.input, { deep })
  })
})
