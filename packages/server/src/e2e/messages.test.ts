import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type Anthropic from '@anthropic-ai/sdk'
import { LATEST_SYNTIC_VERSION, standardToolDefinition } from '@syntic/protocol'
import { loadFixture } from '../testing/scripted-upstream.js'
import { Harness } from './harness.js'

const MODELS = { 'Syntic Code': 'qwen2.5-coder-32b' }
const TOOLS = [
  { type: 'syntic_text_editor', root: '/workspace' },
  { type: 'syntic_shell' },
] as unknown as Anthropic.Messages.ToolUnion[]
const EDITOR = standardToolDefinition(
  'syntic_text_editor',
  { root: '/workspace' },
  LATEST_SYNTIC_VERSION,
)
const SHELL = standardToolDefinition('syntic_shell', {}, LATEST_SYNTIC_VERSION)
const ASK: Anthropic.Messages.MessageParam[] = [
  { role: 'user', content: 'The tests in tests/test_dates.py fail. Find the bug and fix it.' },
]
const FOLLOW_UP: Anthropic.Messages.MessageParam[] = [
  ...ASK,
  {
    role: 'assistant',
    content: [
      { type: 'text', text: "I'll look at the failing test first." },
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'syntic_text_editor',
        input: { command: 'view', path: '/workspace/tests/test_dates.py' },
      },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: '1\tfrom dates import is_leap_year' },
    ],
  },
]

interface UpstreamMessagesBody {
  model: string
  stream?: boolean
  messages: unknown[]
  tools: { name: string; description: string; input_schema: Record<string, unknown> }[]
}

interface UpstreamChatBody {
  model: string
  stream?: boolean
  messages: { role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown }[]
  tools: { type: string; function: { name: string; description: string } }[]
}

function toolUses(message: Anthropic.Messages.Message): [string, unknown][] {
  return message.content
    .filter((b): b is Anthropic.Messages.ToolUseBlock => b.type === 'tool_use')
    .map((b) => [b.name, b.input])
}

describe('POST /v1/messages, Anthropic-format upstream', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'anthropic', models: MODELS })
  })
  after(() => h.close())

  it('expands the standard tools and returns the tool_use blocks', async () => {
    h.upstream.enqueue(loadFixture('anthropic-tool-use'))
    const message = await h.anthropic().messages.create({
      model: 'Syntic Code',
      max_tokens: 1024,
      tools: TOOLS,
      messages: ASK,
    })
    assert.equal(message.model, 'Syntic Code')
    assert.equal(message.stop_reason, 'tool_use')
    assert.deepEqual(toolUses(message), [
      ['syntic_text_editor', { command: 'view', path: '/workspace/tests/test_dates.py' }],
    ])
    const sent = h.upstream.requests.at(-1)!
    assert.equal(sent.path, '/v1/messages')
    assert.equal(sent.headers['x-api-key'], 'sk-upstream-secret')
    const body = sent.body as UpstreamMessagesBody
    assert.equal(body.model, 'qwen2.5-coder-32b')
    assert.deepEqual(
      body.tools.map((t) => [t.name, t.description, t.input_schema.type]),
      [
        ['syntic_text_editor', EDITOR.description, 'object'],
        ['syntic_shell', SHELL.description, 'object'],
      ],
    )
  })

  it('passes the tool results of the next request through', async () => {
    h.upstream.enqueue(loadFixture('anthropic-text'))
    const message = await h.anthropic().messages.create({
      model: 'Syntic Code',
      max_tokens: 1024,
      tools: TOOLS,
      messages: FOLLOW_UP,
    })
    assert.equal(message.stop_reason, 'end_turn')
    const body = h.upstream.requests.at(-1)!.body as UpstreamMessagesBody
    assert.deepEqual(body.messages, FOLLOW_UP)
  })

  it('streams input_json_delta events that the SDK assembles', async () => {
    h.upstream.enqueue(loadFixture('anthropic-text-tool-use-stream'))
    const stream = h.anthropic().messages.stream({
      model: 'Syntic Code',
      max_tokens: 1024,
      tools: TOOLS,
      messages: ASK,
    })
    const partials: string[] = []
    stream.on('inputJson', (partial) => partials.push(partial))
    const message = await stream.finalMessage()
    assert.equal(message.model, 'Syntic Code')
    assert.deepEqual(toolUses(message), [
      ['syntic_shell', { command: 'run', cmd: 'python -m pytest tests/test_dates.py -q' }],
    ])
    assert.ok(partials.length >= 4)
    assert.equal((h.upstream.requests.at(-1)!.body as UpstreamMessagesBody).stream, true)
  })

  it('writes named events', async () => {
    h.upstream.enqueue(loadFixture('anthropic-text-tool-use-stream'))
    const response = await h.fetch('/v1/messages', {
      json: { model: 'Syntic Code', max_tokens: 64, stream: true, messages: ASK },
    })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/)
    const events = (await response.text()).split('\n\n').filter((e) => e !== '')
    assert.match(events[0]!, /^event: message_start\ndata: \{/)
    assert.match(events.at(-1)!, /^event: message_stop\ndata: \{"type":"message_stop"\}$/)
    for (const event of events) {
      const [name, data] = event.split('\n')
      const parsed = JSON.parse(data!.slice(6)) as { type: string; message?: { model: string } }
      assert.equal(name, `event: ${parsed.type}`)
      if (parsed.message) assert.equal(parsed.message.model, 'Syntic Code')
    }
  })
})

describe('POST /v1/messages, OpenAI-format upstream', () => {
  let h: Harness
  before(async () => {
    h = await Harness.start({ format: 'openai', models: MODELS })
  })
  after(() => h.close())

  it('translates the request to chat completions and the reply back', async () => {
    h.upstream.enqueue(loadFixture('openai-tool-calls'))
    const message = await h.anthropic().messages.create({
      model: 'Syntic Code',
      max_tokens: 1024,
      system: 'You fix bugs.',
      tools: TOOLS,
      messages: ASK,
    })
    assert.equal(message.model, 'Syntic Code')
    assert.equal(message.stop_reason, 'tool_use')
    assert.deepEqual(toolUses(message), [
      ['syntic_text_editor', { command: 'view', path: '/workspace/tests/test_dates.py' }],
      ['syntic_shell', { command: 'run', cmd: 'python -m pytest tests/test_dates.py -q' }],
    ])
    const sent = h.upstream.requests.at(-1)!
    assert.equal(sent.path, '/v1/chat/completions')
    assert.equal(sent.headers.authorization, 'Bearer sk-upstream-secret')
    const body = sent.body as UpstreamChatBody
    assert.equal(body.model, 'qwen2.5-coder-32b')
    assert.deepEqual(
      body.tools.map((t) => [t.type, t.function.name, t.function.description]),
      [
        ['function', 'syntic_text_editor', EDITOR.description],
        ['function', 'syntic_shell', SHELL.description],
      ],
    )
    assert.deepEqual(body.messages[0], { role: 'system', content: 'You fix bugs.' })
  })

  it('sends tool_result blocks as tool messages', async () => {
    h.upstream.enqueue(loadFixture('openai-text'))
    const message = await h.anthropic().messages.create({
      model: 'Syntic Code',
      max_tokens: 1024,
      tools: TOOLS,
      messages: FOLLOW_UP,
    })
    assert.equal(message.stop_reason, 'end_turn')
    const body = h.upstream.requests.at(-1)!.body as UpstreamChatBody
    const tool = body.messages.find((m) => m.role === 'tool')
    assert.equal(tool?.tool_call_id, 'toolu_1')
    assert.match(JSON.stringify(tool?.content), /from dates import is_leap_year/)
    assert.ok(body.messages.some((m) => m.role === 'assistant' && m.tool_calls !== undefined))
  })

  it('translates the chunk stream into Messages events the SDK assembles', async () => {
    h.upstream.enqueue(loadFixture('openai-tool-calls-stream'))
    const stream = h.anthropic().messages.stream({
      model: 'Syntic Code',
      max_tokens: 1024,
      tools: TOOLS,
      messages: ASK,
    })
    const partials: string[] = []
    stream.on('inputJson', (partial) => partials.push(partial))
    const message = await stream.finalMessage()
    assert.equal(message.model, 'Syntic Code')
    assert.equal(message.stop_reason, 'tool_use')
    assert.deepEqual(toolUses(message), [
      ['syntic_text_editor', { command: 'view', path: '/workspace/tests/test_dates.py' }],
      ['syntic_shell', { command: 'run', cmd: 'python -m pytest tests/test_dates.py -q' }],
    ])
    assert.ok(partials.length > 10)
    assert.equal((h.upstream.requests.at(-1)!.body as UpstreamChatBody).stream, true)
  })

  it('streams plain text', async () => {
    h.upstream.enqueue(loadFixture('openai-text-stream'))
    const message = await h
      .anthropic()
      .messages.stream({ model: 'Syntic Code', max_tokens: 64, messages: ASK })
      .finalMessage()
    const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    assert.match(text, /^The bug is/)
    assert.equal(message.stop_reason, 'end_turn')
  })
})
