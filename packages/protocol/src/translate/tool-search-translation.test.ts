// Tool search across the two formats: requests (entry, defer_loading, mcp_servers, records),
// responses and streams.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../chat/types.js'
import { validateChatRequest } from '../chat/validate.js'
import type { MessagesRequest, MessagesResponse, MessagesStreamEvent } from '../messages/types.js'
import { validateMessagesRequest } from '../messages/validate.js'
import { chatRequestToMessages } from './chat-request-to-messages.js'
import { ChatToMessagesStream } from './chat-to-messages-stream.js'
import { messagesRequestToChat } from './messages-request-to-chat.js'
import { chatResponseToMessages, messagesResponseToChat } from './responses.js'
import { TOOL_SEARCH_CHAT_STREAM } from './tool-search-fixtures.js'

function chat(body: Record<string, unknown>): ChatCompletionRequest {
  const check = validateChatRequest(body)
  assert.ok(check.ok, check.ok ? '' : `${check.problem.param}: ${check.problem.message}`)
  return check.value
}

function messages(body: Record<string, unknown>): MessagesRequest {
  const check = validateMessagesRequest(body)
  assert.ok(check.ok, check.ok ? '' : `${check.problem.param}: ${check.problem.message}`)
  return check.value
}

const MCP = [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'shop', defer_loading: true }]

const MESSAGES_REQUEST = {
  model: 'Amara S1.2',
  max_tokens: 1024,
  tools: [
    { type: 'syntic_tool_search', mode: 'semantic', max_results: 5 },
    { name: 'get_order', description: 'Look up an order.', input_schema: { type: 'object' } },
    {
      name: 'create_refund',
      description: 'Refund part or all of an order.',
      input_schema: { type: 'object' },
      defer_loading: true,
    },
  ],
  mcp_servers: MCP,
  messages: [
    { role: 'user', content: 'Refund £12.50 on order 582131.' },
    {
      role: 'assistant',
      content: [
        {
          type: 'server_tool_use',
          id: 'srv_05',
          name: 'syntic_tool_search',
          input: { query: 'refund an order' },
        },
        {
          type: 'syntic_tool_search_result',
          tool_use_id: 'srv_05',
          loaded: ['create_refund', 'get_order'],
          status: 'ok',
        },
        {
          type: 'server_tool_use',
          id: 'srv_06',
          name: 'syntic_tool_search',
          input: { query: 'payments' },
        },
        { type: 'syntic_tool_search_result', tool_use_id: 'srv_06', loaded: [], status: 'error' },
        { type: 'text', text: 'Refunding.' },
        {
          type: 'tool_use',
          id: 'call_r1',
          name: 'create_refund',
          input: { order_number: '582131', amount_pence: 1250 },
        },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_r1', content: 'done' }] },
  ],
}

describe('tool search in request translation', () => {
  it('messages -> chat carries the entry, defer_loading, mcp_servers and records', () => {
    const result = messagesRequestToChat(messages(structuredClone(MESSAGES_REQUEST)))
    assert.deepEqual(result.tools?.[0], {
      type: 'syntic_tool_search',
      mode: 'semantic',
      max_results: 5,
    })
    assert.deepEqual(result.tools?.[2], {
      type: 'function',
      defer_loading: true,
      function: {
        name: 'create_refund',
        description: 'Refund part or all of an order.',
        parameters: { type: 'object' },
      },
    })
    assert.ok(!('defer_loading' in (result.tools?.[1] ?? {})))
    assert.deepEqual(result.mcp_servers, MCP)
    assert.deepEqual(result.messages[1], {
      role: 'assistant',
      content: 'Refunding.',
      tool_calls: [
        {
          id: 'call_r1',
          type: 'function',
          function: {
            name: 'create_refund',
            arguments: '{"order_number":"582131","amount_pence":1250}',
          },
        },
      ],
      server_tool_calls: [
        {
          id: 'srv_05',
          type: 'syntic_tool_search',
          query: 'refund an order',
          loaded: ['create_refund', 'get_order'],
          status: 'ok',
        },
        {
          id: 'srv_06',
          type: 'syntic_tool_search',
          query: 'payments',
          loaded: [],
          status: 'error',
        },
      ],
      tool_search: { loaded: ['create_refund', 'get_order'] },
    })
    assert.ok(validateChatRequest(result).ok, 'the translation is a valid chat request')
  })

  it('messages -> chat reads a search whose result never came as failed', () => {
    const result = messagesRequestToChat(
      messages({
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: [
              {
                type: 'server_tool_use',
                id: 'srv_1',
                name: 'syntic_tool_search',
                input: { query: 'q' },
              },
            ],
          },
        ],
      }),
    )
    assert.deepEqual(result.messages[1], {
      role: 'assistant',
      content: '',
      server_tool_calls: [
        { id: 'srv_1', type: 'syntic_tool_search', query: 'q', loaded: [], status: 'error' },
      ],
      tool_search: { loaded: [] },
    })
  })

  it('chat -> messages puts the searches first and carries defer_loading on function and custom tools', () => {
    const result = chatRequestToMessages(
      chat({
        model: 'm',
        tools: [
          { type: 'syntic_tool_search' },
          { type: 'function', defer_loading: true, function: { name: 'a' } },
          { type: 'custom', defer_loading: false, custom: { name: 'sql', description: 'SQL' } },
        ],
        mcp_servers: MCP,
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: 'Found it.',
            server_tool_calls: [
              { id: 'srv_1', type: 'syntic_tool_search', query: 'q', loaded: ['a'], status: 'ok' },
            ],
            tool_search: { loaded: ['a', 'b'] },
          },
          { role: 'user', content: 'y' },
        ],
      }),
    )
    assert.deepEqual(result.tools?.[0], { type: 'syntic_tool_search' })
    assert.equal(
      (result.tools?.[1] as { defer_loading?: boolean } | undefined)?.defer_loading,
      true,
    )
    assert.deepEqual(result.tools?.[2], {
      name: 'sql',
      description: 'SQL',
      defer_loading: false,
      input_schema: {
        type: 'object',
        properties: { input: { type: 'string', description: 'The tool input, as free text.' } },
        required: ['input'],
      },
    })
    assert.deepEqual(result.mcp_servers, MCP)
    assert.deepEqual(result.messages[1], {
      role: 'assistant',
      content: [
        { type: 'server_tool_use', id: 'srv_1', name: 'syntic_tool_search', input: { query: 'q' } },
        { type: 'syntic_tool_search_result', tool_use_id: 'srv_1', loaded: ['a'], status: 'ok' },
        { type: 'text', text: 'Found it.' },
      ],
    })
    assert.ok(validateMessagesRequest(result).ok, 'the translation is a valid messages request')
  })

  it('messages -> chat -> messages keeps tool search whole', () => {
    const original = messages(structuredClone(MESSAGES_REQUEST))
    const back = chatRequestToMessages(messagesRequestToChat(original))
    assert.deepEqual(back.tools, original.tools)
    assert.deepEqual(back.mcp_servers, original.mcp_servers)
    assert.deepEqual(back.messages[1], original.messages[1])
  })
})

/** The spec's example response, with the usual completion fields. */
const CHAT_RESPONSE: ChatCompletion = {
  id: 'chatcmpl-ts1',
  object: 'chat.completion',
  created: 1_760_000_000,
  model: 'Amara S1.2',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      logprobs: null,
      message: {
        role: 'assistant',
        content: '',
        refusal: null,
        server_tool_calls: [
          {
            id: 'srv_05',
            type: 'syntic_tool_search',
            query: 'refund an order',
            loaded: ['create_refund', 'get_order'],
            status: 'ok',
          },
        ],
        tool_search: { loaded: ['create_refund', 'get_order'] },
        tool_calls: [
          {
            id: 'call_r1',
            type: 'function',
            function: {
              name: 'create_refund',
              arguments: '{"order_number":"582131","amount_pence":1250}',
            },
          },
        ],
      },
    },
  ],
  usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 },
}

describe('tool search in response translation', () => {
  it('chat -> messages: server_tool_use and its result come before the tool_use blocks', () => {
    const result = chatResponseToMessages(CHAT_RESPONSE, 'Amara S1.2')
    assert.deepEqual(result.content, [
      {
        type: 'server_tool_use',
        id: 'srv_05',
        name: 'syntic_tool_search',
        input: { query: 'refund an order' },
      },
      {
        type: 'syntic_tool_search_result',
        tool_use_id: 'srv_05',
        loaded: ['create_refund', 'get_order'],
        status: 'ok',
      },
      {
        type: 'tool_use',
        id: 'call_r1',
        name: 'create_refund',
        input: { order_number: '582131', amount_pence: 1250 },
      },
    ])
    assert.equal(result.stop_reason, 'tool_use')
  })

  it('messages -> chat gives the calls and the record back', () => {
    const back = messagesResponseToChat(chatResponseToMessages(CHAT_RESPONSE, 'm'), 'm')
    const message = back.choices[0]!.message
    assert.deepEqual(message.server_tool_calls, CHAT_RESPONSE.choices[0]!.message.server_tool_calls)
    assert.deepEqual(message.tool_search, { loaded: ['create_refund', 'get_order'] })
    assert.deepEqual(message.tool_calls, CHAT_RESPONSE.choices[0]!.message.tool_calls)
    assert.equal(back.choices[0]!.finish_reason, 'tool_calls')
  })

  it('a response without searches gets no server fields', () => {
    const plain: MessagesResponse = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'Hi.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    }
    const message = messagesResponseToChat(plain, 'm').choices[0]!.message
    assert.ok(!('server_tool_calls' in message) && !('tool_search' in message))
  })

  it('skips malformed server calls and blocks without throwing', () => {
    const junk = structuredClone(CHAT_RESPONSE) as unknown as {
      choices: { message: Record<string, unknown> }[]
    }
    junk.choices[0]!.message.server_tool_calls = [
      null,
      7,
      { type: 'web_search', id: 'x' },
      { type: 'syntic_tool_search', loaded: [1, 'ok_name', null], status: 'weird' },
    ]
    const result = chatResponseToMessages(junk as unknown as ChatCompletion, 'm')
    const server = result.content.filter((block) => block.type !== 'tool_use')
    assert.equal(server.length, 2)
    assert.deepEqual(server[1], {
      type: 'syntic_tool_search_result',
      tool_use_id: (server[0] as { id: string }).id,
      loaded: ['ok_name'],
      status: 'error',
    })
    assert.match((server[0] as { id: string }).id, /^srv_/)
    junk.choices[0]!.message.server_tool_calls = 'nope'
    assert.equal(chatResponseToMessages(junk as unknown as ChatCompletion, 'm').content.length, 1)
    const blocks = messagesResponseToChat(
      {
        ...chatResponseToMessages(CHAT_RESPONSE, 'm'),
        content: [
          { type: 'syntic_tool_search_result', loaded: 'x', status: 'ok' },
          { type: 'server_tool_use', name: 'other' },
        ],
      } as unknown as MessagesResponse,
      'm',
    )
    assert.equal(blocks.choices[0]!.message.server_tool_calls?.length, 1)
  })
})

function toMessages(chunks: unknown[]): MessagesStreamEvent[] {
  const stream = new ChatToMessagesStream('Amara S1.2')
  return [
    ...chunks.flatMap((chunk) => stream.push(chunk as ChatCompletionChunk)),
    ...stream.finish(),
  ]
}

/** Block starts and stops, as `start 1 server_tool_use` and `stop 1`. */
function outline(events: MessagesStreamEvent[]): string[] {
  const lines: string[] = []
  for (const event of events) {
    if (event.type === 'content_block_start') {
      lines.push(`start ${event.index} ${event.content_block.type}`)
    } else if (event.type === 'content_block_stop') {
      lines.push(`stop ${event.index}`)
    }
  }
  return lines
}

describe('tool search in ChatToMessagesStream', () => {
  it('sends each search as complete blocks, numbered among the text and tool_use blocks', () => {
    const events = toMessages(TOOL_SEARCH_CHAT_STREAM)
    assert.deepEqual(outline(events), [
      'start 0 text',
      'stop 0',
      'start 1 server_tool_use',
      'stop 1',
      'start 2 syntic_tool_search_result',
      'stop 2',
      'start 3 tool_use',
      'stop 3',
    ])
    const starts = events.filter((event) => event.type === 'content_block_start')
    assert.deepEqual(starts[1]?.content_block, {
      type: 'server_tool_use',
      id: 'srv_05',
      name: 'syntic_tool_search',
      input: { query: 'refund an order' },
    })
    assert.deepEqual(starts[2]?.content_block, {
      type: 'syntic_tool_search_result',
      tool_use_id: 'srv_05',
      loaded: ['create_refund', 'get_order'],
      status: 'ok',
    })
    const end = events.find((event) => event.type === 'message_delta')
    assert.equal(end?.type === 'message_delta' && end.delta.stop_reason, 'tool_use')
  })

  it('a search alone does not make the turn a tool_use turn', () => {
    const events = toMessages([
      TOOL_SEARCH_CHAT_STREAM[2],
      TOOL_SEARCH_CHAT_STREAM[3],
      {
        ...TOOL_SEARCH_CHAT_STREAM[1],
        choices: [{ index: 0, delta: { content: 'None.' }, finish_reason: 'stop' }],
      },
    ])
    assert.deepEqual(outline(events), [
      'start 0 server_tool_use',
      'stop 0',
      'start 1 syntic_tool_search_result',
      'stop 1',
      'start 2 text',
      'stop 2',
    ])
    const end = events.find((event) => event.type === 'message_delta')
    assert.equal(end?.type === 'message_delta' && end.delta.stop_reason, 'end_turn')
  })

  it('sends the use block first when a result comes without its start, and each block once', () => {
    const chunk = (call: Record<string, unknown>) => ({
      id: 'c',
      choices: [{ index: 0, delta: { server_tool_calls: [call] }, finish_reason: null }],
    })
    const result = {
      index: 0,
      id: 'srv_9',
      type: 'syntic_tool_search',
      status: 'ok',
      query: 'q',
      loaded: ['a'],
    }
    const events = toMessages([
      chunk(result),
      chunk(result),
      chunk({ ...result, status: 'running' }),
    ])
    assert.deepEqual(outline(events), [
      'start 0 server_tool_use',
      'stop 0',
      'start 1 syntic_tool_search_result',
      'stop 1',
    ])
  })

  it('skips malformed server tool call deltas', () => {
    const chunk = (calls: unknown) => ({
      id: 'c',
      choices: [{ index: 0, delta: { server_tool_calls: calls }, finish_reason: null }],
    })
    const events = toMessages([
      chunk('x'),
      chunk([null, 5, { type: 'syntic_tool_search', status: 'running' }]),
      chunk([{ index: 0, type: 'web_search', status: 'running' }]),
      chunk([{ index: 1, type: 'syntic_tool_search', status: 'ok', loaded: [3, 'a'] }]),
    ])
    assert.deepEqual(outline(events), [
      'start 0 server_tool_use',
      'stop 0',
      'start 1 syntic_tool_search_result',
      'stop 1',
    ])
    const result = events.find(
      (event) =>
        event.type === 'content_block_start' &&
        event.content_block.type === 'syntic_tool_search_result',
    )
    assert.deepEqual(result?.type === 'content_block_start' && result.content_block, {
      type: 'syntic_tool_search_result',
      tool_use_id: (events[1] as { content_block: { id: string } }).content_block.id,
      loaded: ['a'],
      status: 'ok',
    })
  })
})
