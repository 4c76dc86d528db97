// A streamed turn with a tool search, served over real HTTP and read by the official SDKs: the
// chat stream as the loop sends it (openai) and its messages translation (@anthropic-ai/sdk).
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { ChatToMessagesStream } from './chat-to-messages-stream.js'
import { CHAT_SSE_DONE, chatSse, messagesSse } from './test-support.js'
import { TOOL_SEARCH_CHAT_STREAM } from './tool-search-fixtures.js'

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  for await (const _ of request) {
    // The body is not needed; reading it lets the client finish sending.
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  if (request.url === '/v1/chat/completions') {
    response.end([...TOOL_SEARCH_CHAT_STREAM.map(chatSse), CHAT_SSE_DONE].join(''))
    return
  }
  const stream = new ChatToMessagesStream('Amara S1.2')
  const events = [...TOOL_SEARCH_CHAT_STREAM.flatMap((c) => stream.push(c)), ...stream.finish()]
  response.end(events.map(messagesSse).join(''))
}

let server: Server
let openai: OpenAI
let anthropic: Anthropic

before(async () => {
  server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => response.writeHead(500).end(String(error)))
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

const request = {
  model: 'Amara S1.2',
  messages: [{ role: 'user' as const, content: 'Refund £12.50 on order 582131.' }],
}

describe('the official SDKs read a streamed tool search', () => {
  it("anthropic's MessageStream accumulates the server blocks among the others", async () => {
    const message = await anthropic.messages.stream({ ...request, max_tokens: 1024 }).finalMessage()
    const content = message.content as unknown as Record<string, unknown>[]
    assert.deepEqual(
      content.map((block) => block.type),
      ['text', 'server_tool_use', 'syntic_tool_search_result', 'tool_use'],
    )
    assert.deepEqual(content[1], {
      type: 'server_tool_use',
      id: 'srv_05',
      name: 'syntic_tool_search',
      input: { query: 'refund an order' },
    })
    assert.deepEqual(content[2], {
      type: 'syntic_tool_search_result',
      tool_use_id: 'srv_05',
      loaded: ['create_refund', 'get_order'],
      status: 'ok',
    })
    assert.deepEqual(content[3]?.input, { order_number: '582131', amount_pence: 1250 })
    assert.equal(message.stop_reason, 'tool_use')
  })

  it("openai's stream iterator passes server_tool_calls and tool_search through", async () => {
    const stream = await openai.chat.completions.create({ ...request, stream: true })
    const deltas: Record<string, unknown>[] = []
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined
      if (delta?.server_tool_calls !== undefined || delta?.tool_search !== undefined) {
        deltas.push(delta)
      }
    }
    assert.deepEqual(
      deltas.map((delta) => delta.server_tool_calls ?? delta.tool_search),
      [
        TOOL_SEARCH_CHAT_STREAM[2]?.choices[0]?.delta.server_tool_calls,
        TOOL_SEARCH_CHAT_STREAM[3]?.choices[0]?.delta.server_tool_calls,
        { loaded: ['create_refund', 'get_order'] },
      ],
    )
  })

  it("openai's ChatCompletionStream assembles the call and keeps the server fields", async () => {
    const completion = await openai.chat.completions.stream(request).finalChatCompletion()
    const message = completion.choices[0]?.message as unknown as Record<string, unknown>
    assert.equal(completion.choices[0]?.finish_reason, 'tool_calls')
    assert.equal(message.content, 'Let me look.')
    assert.deepEqual(message.tool_search, { loaded: ['create_refund', 'get_order'] })
    // The helper keeps the latest value of a field it does not know: the search's result.
    assert.deepEqual(message.server_tool_calls, [
      {
        index: 0,
        id: 'srv_05',
        type: 'syntic_tool_search',
        query: 'refund an order',
        status: 'ok',
        loaded: ['create_refund', 'get_order'],
      },
    ])
    const calls = message.tool_calls as { function: { name: string; arguments: string } }[]
    assert.equal(calls[0]?.function.name, 'create_refund')
    assert.deepEqual(JSON.parse(calls[0]?.function.arguments ?? ''), {
      order_number: '582131',
      amount_pence: 1250,
    })
  })
})
