// The translations served over real HTTP as SSE and read by the official SDKs' stream helpers,
// which are the strictest consumers our clients use.
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import type { ChatCompletion, ChatCompletionChunk } from '../chat/types.js'
import type { MessagesResponse, MessagesStreamEvent } from '../messages/types.js'
import { ChatToMessagesStream } from './chat-to-messages-stream.js'
import { MessagesToChatStream } from './messages-to-chat-stream.js'
import { chatResponseToMessages, messagesResponseToChat } from './responses.js'
import {
  CHAT_CUT_SHORT,
  CHAT_SSE_DONE,
  CHAT_TEXT_THEN_TOOLS,
  chatChunk,
  chatSse,
  MESSAGES_TEXT_THEN_TOOLS,
  MESSAGES_THINKING_THEN_TEXT,
  messagesSse,
} from './test-support.js'

/** Upstream streams by scenario name, which a test passes as the model. */
const MESSAGES_STREAMS: Record<string, MessagesStreamEvent[]> = {
  tools: MESSAGES_TEXT_THEN_TOOLS,
  thinking: MESSAGES_THINKING_THEN_TEXT,
  'cut-short': MESSAGES_TEXT_THEN_TOOLS.slice(0, 9),
}

const CHAT_STREAMS: Record<string, ChatCompletionChunk[]> = {
  tools: CHAT_TEXT_THEN_TOOLS,
  'cut-short': CHAT_CUT_SHORT,
  interleaved: [
    chatChunk({ role: 'assistant' }),
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
  ],
}

const CHAT_RESPONSE: ChatCompletion = {
  id: 'chatcmpl-json1',
  object: 'chat.completion',
  created: 1_760_000_000,
  model: 'gpt-upstream',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      logprobs: null,
      message: {
        role: 'assistant',
        content: 'On it.',
        refusal: null,
        tool_calls: [
          {
            id: 'call_9',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Lima"}' },
          },
        ],
      },
    },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
}

const MESSAGES_RESPONSE: MessagesResponse = {
  id: 'msg_json1',
  type: 'message',
  role: 'assistant',
  model: 'claude-upstream',
  content: [
    { type: 'text', text: 'On it.' },
    { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Lima' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 7 },
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = ''
  for await (const part of request) text += part
  return JSON.parse(text) as Record<string, unknown>
}

/** Writes SSE frames one by one, splitting each in two, so the client parser meets every boundary. */
async function writeFrames(response: ServerResponse, frames: string[]): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const frame of frames) {
    const half = Math.floor(frame.length / 2)
    response.write(frame.slice(0, half))
    await new Promise((resolve) => setImmediate(resolve))
    response.write(frame.slice(half))
  }
  response.end()
}

/** Chat completions in front of a messages upstream, messages in front of a chat upstream. */
async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJson(request)
  const scenario = String(body.model)
  if (request.url === '/v1/chat/completions') {
    if (body.stream !== true) {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(messagesResponseToChat(MESSAGES_RESPONSE, scenario)))
      return
    }
    const stream = new MessagesToChatStream(scenario)
    const chunks = [
      ...(MESSAGES_STREAMS[scenario] ?? []).flatMap((e) => stream.push(e)),
      ...stream.finish(),
    ]
    await writeFrames(response, [...chunks.map(chatSse), CHAT_SSE_DONE])
    return
  }
  if (request.url === '/v1/messages') {
    if (body.stream !== true) {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(chatResponseToMessages(CHAT_RESPONSE, scenario)))
      return
    }
    const stream = new ChatToMessagesStream(scenario)
    const events = [
      ...(CHAT_STREAMS[scenario] ?? []).flatMap((c) => stream.push(c)),
      ...stream.finish(),
    ]
    const withPing = [events[0]!, { type: 'ping' } as const, ...events.slice(1)]
    await writeFrames(response, withPing.map(messagesSse))
    return
  }
  response.writeHead(404).end()
}

let server: Server
let openai: OpenAI
let anthropic: Anthropic

before(async () => {
  server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const options = { apiKey: 'test-key', maxRetries: 0, timeout: 10_000 }
  openai = new OpenAI({ ...options, baseURL: `http://127.0.0.1:${port}/v1` })
  anthropic = new Anthropic({ ...options, baseURL: `http://127.0.0.1:${port}` })
})

after(async () => {
  await new Promise((resolve) => server.close(resolve))
})

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
}

describe("openai's ChatCompletionStream reads MessagesToChatStream output", () => {
  it('assembles text, two tool calls with their arguments, the finish reason and usage', async () => {
    const stream = openai.chat.completions.stream({
      model: 'tools',
      messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
      tools: [weatherTool],
      stream_options: { include_usage: true },
    })
    const doneArguments: string[] = []
    stream.on('tool_calls.function.arguments.done', (event) => doneArguments.push(event.arguments))
    const completion = await stream.finalChatCompletion()
    assert.equal(completion.id, 'msg_01Rec')
    assert.equal(completion.model, 'tools')
    const choice = completion.choices[0]!
    assert.equal(choice.finish_reason, 'tool_calls')
    assert.equal(choice.message.role, 'assistant')
    assert.equal(choice.message.content, 'Let me check both cities.')
    const calls = (choice.message.tool_calls ?? []).map((call) => {
      assert.equal(call.type, 'function')
      return call.type === 'function'
        ? [call.id, call.function.name, JSON.parse(call.function.arguments)]
        : []
    })
    assert.deepEqual(calls, [
      ['toolu_01Paris', 'get_weather', { city: 'Paris' }],
      ['toolu_01Rome', 'get_weather', { city: 'Rome', units: ['c'] }],
    ])
    assert.equal(doneArguments.length, 2)
    assert.deepEqual(completion.usage, {
      prompt_tokens: 230,
      completion_tokens: 58,
      total_tokens: 288,
      prompt_tokens_details: { cached_tokens: 200 },
    })
  })

  it('reads a thinking-then-text stream cut by max_tokens', async () => {
    const completion = await openai.chat.completions
      .stream({ model: 'thinking', messages: [{ role: 'user', content: 'Hi' }] })
      .finalChatCompletion()
    assert.equal(completion.choices[0]!.message.content, 'Hello, world')
    assert.equal(completion.choices[0]!.finish_reason, 'length')
  })

  it('reads an upstream stream that broke off, with partial arguments kept', async () => {
    const completion = await openai.chat.completions
      .stream({ model: 'cut-short', messages: [{ role: 'user', content: 'Hi' }] })
      .finalChatCompletion()
    const call = completion.choices[0]!.message.tool_calls![0]!
    assert.ok(call.type === 'function')
    assert.equal(call.function.arguments, '{"city": "P')
    assert.equal(completion.choices[0]!.finish_reason, 'tool_calls')
  })

  it('reads a translated non-streaming response', async () => {
    const completion = await openai.chat.completions.create({
      model: 'json',
      messages: [{ role: 'user', content: 'Weather in Lima?' }],
    })
    const call = completion.choices[0]!.message.tool_calls![0]!
    assert.ok(call.type === 'function')
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Lima' })
    assert.equal(call.id, 'toolu_9')
    assert.equal(completion.choices[0]!.finish_reason, 'tool_calls')
  })
})

describe("anthropic's MessageStream reads ChatToMessagesStream output", () => {
  it('assembles text, two tool_use inputs, the stop reason and usage', async () => {
    const stream = anthropic.messages.stream({
      model: 'tools',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
    })
    const texts: string[] = []
    stream.on('text', (text) => texts.push(text))
    const message = await stream.finalMessage()
    assert.equal(message.id, 'chatcmpl-rec1')
    assert.equal(message.model, 'tools')
    assert.equal(message.stop_reason, 'tool_use')
    assert.equal(texts.join(''), 'Let me check both cities.')
    assert.deepEqual(
      message.content.map((block) =>
        block.type === 'text'
          ? ['text', block.text]
          : block.type === 'tool_use'
            ? [block.id, block.name, block.input]
            : [block.type],
      ),
      [
        ['text', 'Let me check both cities.'],
        ['call_Paris1', 'get_weather', { city: 'Paris' }],
        ['call_Rome22', 'get_weather', { city: 'Rome', units: ['c'] }],
      ],
    )
    assert.equal(message.usage.input_tokens, 20)
    assert.equal(message.usage.output_tokens, 45)
    assert.equal(message.usage.cache_read_input_tokens, 100)
  })

  it('reads a stream that ended without a finish reason', async () => {
    const message = await anthropic.messages
      .stream({ model: 'cut-short', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage()
    assert.equal(message.stop_reason, 'end_turn')
    assert.deepEqual(
      message.content.map((b) => (b.type === 'text' ? b.text : b.type)),
      ['Partial answer'],
    )
  })

  it('assembles inputs of tool calls an upstream interleaved', async () => {
    const message = await anthropic.messages
      .stream({ model: 'interleaved', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage()
    assert.deepEqual(
      message.content.map((b) => (b.type === 'tool_use' ? [b.name, b.input] : b.type)),
      [
        ['f', { x: 1 }],
        ['g', { y: 2 }],
      ],
    )
  })

  it('reads a translated non-streaming response', async () => {
    const message = await anthropic.messages.create({
      model: 'json',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Weather in Lima?' }],
    })
    assert.equal(message.stop_reason, 'tool_use')
    const use = message.content.find((b) => b.type === 'tool_use')
    assert.ok(use?.type === 'tool_use')
    assert.equal(use.id, 'call_9')
    assert.deepEqual(use.input, { city: 'Lima' })
  })
})
