import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { LATEST_SYNTIC_VERSION, standardToolDefinition } from '@syntic/protocol'
import type OpenAI from 'openai'
import { loadFixture } from '../testing/scripted-upstream.js'
import { Harness } from './harness.js'

/** The request of the spec's curl example, byte for byte. */
const SPEC_REQUEST = `{
    "model": "Syntic Code",
    "stream": false,
    "tools": [
      { "type": "syntic_text_editor", "root": "/workspace" },
      { "type": "syntic_shell", "max_output_chars": 20000 }
    ],
    "messages": [{ "role": "user", "content": "The tests in tests/test_dates.py fail. Find the bug and fix it." }]
  }`

const MODELS = { 'Syntic Code': 'qwen2.5-coder-32b', 'Amara S1.2': 'llama3.1:8b' }
const STANDARD_TOOLS = [
  { type: 'syntic_text_editor', root: '/workspace' },
  { type: 'syntic_shell', max_output_chars: 20000 },
] as unknown as OpenAI.Chat.ChatCompletionTool[]
const EDITOR = standardToolDefinition(
  'syntic_text_editor',
  { root: '/workspace' },
  LATEST_SYNTIC_VERSION,
)
const SHELL = standardToolDefinition(
  'syntic_shell',
  { max_output_chars: 20000 },
  LATEST_SYNTIC_VERSION,
)

interface UpstreamChatBody {
  model: string
  stream?: boolean
  messages: Record<string, unknown>[]
  tools: { type: string; function: { name: string; description: string; parameters: unknown } }[]
}

interface UpstreamMessagesBody {
  model: string
  max_tokens: number
  stream?: boolean
  messages: Record<string, unknown>[]
  tools: { name: string; description: string; input_schema: unknown }[]
}

const FOLLOW_UP: OpenAI.Chat.ChatCompletionMessageParam[] = [
  { role: 'user', content: 'The tests in tests/test_dates.py fail. Find the bug and fix it.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: {
          name: 'syntic_text_editor',
          arguments: '{"command":"view","path":"/workspace/tests/test_dates.py"}',
        },
      },
      {
        id: 'call_2',
        type: 'function',
        function: {
          name: 'syntic_shell',
          arguments: '{"command":"run","cmd":"python -m pytest tests/test_dates.py -q"}',
        },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '1\tfrom dates import is_leap_year' },
  { role: 'tool', tool_call_id: 'call_2', content: 'exit 1\n1 failed' },
]

describe('POST /v1/chat/completions, OpenAI-format upstream', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'openai', models: MODELS })
  })
  after(() => h.close())

  it("answers the spec's curl request with the model's tool calls", async () => {
    h.upstream.enqueue(loadFixture('openai-tool-calls'))
    const response = await h.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: SPEC_REQUEST,
    })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
    assert.match(response.headers.get('x-request-id') ?? '', /^req_[0-9A-Za-z]{24}$/)
    const completion = (await response.json()) as OpenAI.Chat.ChatCompletion
    assert.equal(completion.model, 'Syntic Code')
    const choice = completion.choices[0]!
    assert.equal(choice.finish_reason, 'tool_calls')
    const calls = (choice.message.tool_calls ??
      []) as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[]
    assert.deepEqual(
      calls.map((c) => c.function.name),
      ['syntic_text_editor', 'syntic_shell'],
    )
    assert.deepEqual(JSON.parse(calls[0]!.function.arguments), {
      command: 'view',
      path: '/workspace/tests/test_dates.py',
    })

    const sent = h.upstream.requests.at(-1)!
    assert.equal(sent.path, '/v1/chat/completions')
    assert.equal(sent.headers.authorization, 'Bearer sk-upstream-secret')
    const body = sent.body as UpstreamChatBody
    assert.equal(body.model, 'qwen2.5-coder-32b')
    assert.deepEqual(body.messages, [
      { role: 'user', content: 'The tests in tests/test_dates.py fail. Find the bug and fix it.' },
    ])
    assert.deepEqual(body.tools, [
      {
        type: 'function',
        function: {
          name: 'syntic_text_editor',
          description: EDITOR.description,
          parameters: EDITOR.input_schema,
        },
      },
      {
        type: 'function',
        function: {
          name: 'syntic_shell',
          description: SHELL.description,
          parameters: SHELL.input_schema,
        },
      },
    ])
    assert.match(body.tools[0]!.function.description, /\/workspace/)
    assert.match(body.tools[1]!.function.description, /20,?000/)
  })

  it('carries the tool results of the next request to the model', async () => {
    h.upstream.enqueue(loadFixture('openai-text'))
    const completion = await h.openai().chat.completions.create({
      model: 'Syntic Code',
      tools: STANDARD_TOOLS,
      messages: FOLLOW_UP,
    })
    assert.equal(completion.model, 'Syntic Code')
    assert.match(completion.choices[0]!.message.content ?? '', /is_leap_year/)
    assert.match(completion._request_id ?? '', /^req_/)
    const body = h.upstream.requests.at(-1)!.body as UpstreamChatBody
    assert.deepEqual(body.messages, FOLLOW_UP)
    assert.deepEqual(
      body.tools.map((t) => t.function.name),
      ['syntic_text_editor', 'syntic_shell'],
    )
  })

  it('streams tool-call argument deltas that the SDK assembles', async () => {
    h.upstream.enqueue(loadFixture('openai-tool-calls-stream'))
    const stream = h.openai().chat.completions.stream({
      model: 'Syntic Code',
      tools: STANDARD_TOOLS,
      messages: FOLLOW_UP.slice(0, 1),
    })
    const deltas: string[] = []
    stream.on('tool_calls.function.arguments.delta', (event) => deltas.push(event.arguments_delta))
    const completion = await stream.finalChatCompletion()
    assert.equal(completion.model, 'Syntic Code')
    const calls = completion.choices[0]!.message
      .tool_calls as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[]
    assert.deepEqual(
      calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
      [
        ['syntic_text_editor', { command: 'view', path: '/workspace/tests/test_dates.py' }],
        ['syntic_shell', { command: 'run', cmd: 'python -m pytest tests/test_dates.py -q' }],
      ],
    )
    assert.ok(deltas.length > 10, `expected many argument deltas, got ${deltas.length}`)
    const body = h.upstream.requests.at(-1)!.body as UpstreamChatBody
    assert.equal(body.stream, true)
    assert.equal(body.model, 'qwen2.5-coder-32b')
  })

  it('writes the stream as data: events ending with [DONE]', async () => {
    h.upstream.enqueue(loadFixture('openai-text-stream'))
    const response = await h.fetch('/v1/chat/completions', {
      json: { model: 'Syntic Code', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/)
    assert.match(response.headers.get('x-request-id') ?? '', /^req_/)
    const text = await response.text()
    const events = text.split('\n\n').filter((e) => e !== '')
    assert.equal(events.at(-1), 'data: [DONE]')
    for (const event of events.slice(0, -1)) {
      assert.match(event, /^data: \{/)
      const chunk = JSON.parse(event.slice(6)) as { model: string; object: string }
      assert.equal(chunk.model, 'Syntic Code')
      assert.equal(chunk.object, 'chat.completion.chunk')
    }
  })
})

describe('POST /v1/chat/completions, Anthropic-format upstream', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'anthropic', models: MODELS })
  })
  after(() => h.close())

  it('translates the request to Messages and the reply back', async () => {
    h.upstream.enqueue(loadFixture('anthropic-tool-use'))
    const completion = await h.openai().chat.completions.create({
      model: 'Syntic Code',
      tools: STANDARD_TOOLS,
      messages: FOLLOW_UP.slice(0, 1),
    })
    assert.equal(completion.model, 'Syntic Code')
    const choice = completion.choices[0]!
    assert.equal(choice.finish_reason, 'tool_calls')
    assert.equal(choice.message.content, "I'll look at the failing test first.")
    const call = choice.message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall
    assert.equal(call.function.name, 'syntic_text_editor')
    assert.deepEqual(JSON.parse(call.function.arguments), {
      command: 'view',
      path: '/workspace/tests/test_dates.py',
    })

    const sent = h.upstream.requests.at(-1)!
    assert.equal(sent.path, '/v1/messages')
    assert.equal(sent.headers['x-api-key'], 'sk-upstream-secret')
    const body = sent.body as UpstreamMessagesBody
    assert.equal(body.model, 'qwen2.5-coder-32b')
    assert.ok(Number.isInteger(body.max_tokens) && body.max_tokens > 0)
    assert.deepEqual(
      body.tools.map((t) => [t.name, t.description]),
      [
        ['syntic_text_editor', EDITOR.description],
        ['syntic_shell', SHELL.description],
      ],
    )
  })

  it('sends the tool results as tool_result blocks', async () => {
    h.upstream.enqueue(loadFixture('anthropic-text'))
    const completion = await h.openai().chat.completions.create({
      model: 'Syntic Code',
      tools: STANDARD_TOOLS,
      messages: FOLLOW_UP,
    })
    assert.match(completion.choices[0]!.message.content ?? '', /divisibility by 400/)
    const body = h.upstream.requests.at(-1)!.body as UpstreamMessagesBody
    const text = JSON.stringify(body.messages)
    assert.match(text, /"type":"tool_use","id":"call_1","name":"syntic_text_editor"/)
    assert.match(text, /"type":"tool_result","tool_use_id":"call_2"/)
    assert.match(text, /1 failed/)
  })

  it('translates the event stream into chunks the SDK assembles', async () => {
    h.upstream.enqueue(loadFixture('anthropic-text-tool-use-stream'))
    const completion = await h
      .openai()
      .chat.completions.stream({
        model: 'Syntic Code',
        tools: STANDARD_TOOLS,
        messages: FOLLOW_UP.slice(0, 1),
      })
      .finalChatCompletion()
    assert.equal(completion.model, 'Syntic Code')
    const message = completion.choices[0]!.message
    assert.equal(message.content, 'Let me run the failing test to see the error.')
    assert.equal(completion.choices[0]!.finish_reason, 'tool_calls')
    const call = message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall
    assert.equal(call.function.name, 'syntic_shell')
    assert.deepEqual(JSON.parse(call.function.arguments), {
      command: 'run',
      cmd: 'python -m pytest tests/test_dates.py -q',
    })
    const body = h.upstream.requests.at(-1)!.body as UpstreamMessagesBody
    assert.equal(body.stream, true)
  })
})
