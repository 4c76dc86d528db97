import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { THINKING_BUDGET_MIN, TOOLS_MAX } from '../chat/request-limits.js'
import { validateMessagesRequest } from './validate.js'

type Body = Record<string, unknown>

const user = (content: unknown = 'Hello'): Body => ({ role: 'user', content })
const assistant = (content: unknown): Body => ({ role: 'assistant', content })
const base = (over: Body = {}): Body => ({
  model: 'Syntic Code',
  max_tokens: 1024,
  messages: [user()],
  ...over,
})
const withMessages = (...messages: unknown[]): Body => base({ messages })
const withTools = (...tools: unknown[]): Body => base({ tools })
const tool = (name: string, extra: Body = {}): Body => ({
  name,
  input_schema: { type: 'object', properties: {} },
  ...extra,
})
const use = (id: string, input: unknown = {}): Body => ({
  type: 'tool_use',
  id,
  name: 'get_weather',
  input,
})
const result = (id: string, extra: Body = {}): Body => ({
  type: 'tool_result',
  tool_use_id: id,
  content: 'sunny',
  ...extra,
})
const text = (value: string, extra: Body = {}): Body => ({ type: 'text', text: value, ...extra })
const image = (source: Body): Body => ({ type: 'image', source })
const nested = (depth: number): unknown => {
  let value: unknown = 'leaf'
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

/** [what is wrong, body, expected code, expected param] */
const BAD: [string, unknown, string, string | null][] = [
  ['null body', null, 'invalid_request', null],
  ['array body', [], 'invalid_request', null],
  ['boolean body', true, 'invalid_request', null],
  ['missing model', { max_tokens: 5, messages: [user()] }, 'invalid_request', 'model'],
  ['missing max_tokens', { model: 'm', messages: [user()] }, 'invalid_request', 'max_tokens'],
  ['max_tokens of 0', base({ max_tokens: 0 }), 'invalid_request', 'max_tokens'],
  ['fractional max_tokens', base({ max_tokens: 1.5 }), 'invalid_request', 'max_tokens'],
  ['max_tokens as a string', base({ max_tokens: '100' }), 'invalid_request', 'max_tokens'],
  ['chat-only field n', base({ n: 2 }), 'unknown_parameter', 'n'],
  ['chat field stop', base({ stop: ['x'] }), 'unknown_parameter', 'stop'],
  ['unknown field', base({ foo: true }), 'unknown_parameter', 'foo'],
  ['missing messages', { model: 'm', max_tokens: 5 }, 'invalid_request', 'messages'],
  ['empty messages', base({ messages: [] }), 'invalid_request', 'messages'],
  [
    'tool role',
    withMessages(user(), { role: 'tool', content: 'x' }),
    'invalid_request',
    'messages[1].role',
  ],
  [
    'unknown message field',
    withMessages({ ...user(), name: 'bob' }),
    'unknown_parameter',
    'messages[0].name',
  ],
  ['empty user content', withMessages(user('')), 'invalid_request', 'messages[0].content'],
  ['empty block list', withMessages(user([])), 'invalid_request', 'messages[0].content'],
  ['numeric content', withMessages(user(7)), 'invalid_request', 'messages[0].content'],
  [
    'chat image part',
    withMessages(user([{ type: 'image_url', image_url: { url: 'https://x' } }])),
    'invalid_request',
    'messages[0].content[0].type',
  ],
  [
    'empty text block',
    withMessages(user([text('')])),
    'invalid_request',
    'messages[0].content[0].text',
  ],
  [
    'unknown block field',
    withMessages(user([text('x', { foo: 1 })])),
    'unknown_parameter',
    'messages[0].content[0].foo',
  ],
  ['block not an object', withMessages(user(['x'])), 'invalid_request', 'messages[0].content[0]'],
  [
    'image source type',
    withMessages(user([image({ type: 'path', path: '/a.png' })])),
    'invalid_request',
    'messages[0].content[0].source.type',
  ],
  [
    'image media type',
    withMessages(user([image({ type: 'base64', media_type: 'image/bmp', data: 'AA' })])),
    'invalid_request',
    'messages[0].content[0].source.media_type',
  ],
  [
    'image without data',
    withMessages(user([image({ type: 'base64', media_type: 'image/png', data: '' })])),
    'invalid_request',
    'messages[0].content[0].source.data',
  ],
  [
    'image url scheme',
    withMessages(user([image({ type: 'url', url: 'file:///etc/passwd' })])),
    'invalid_request',
    'messages[0].content[0].source.url',
  ],
  [
    'image without source',
    withMessages(user([{ type: 'image' }])),
    'invalid_request',
    'messages[0].content[0].source',
  ],
  [
    'document media type',
    withMessages(
      user([{ type: 'document', source: { type: 'base64', media_type: 'text/html', data: 'AA' } }]),
    ),
    'invalid_request',
    'messages[0].content[0].source.media_type',
  ],
  [
    'cache_control type',
    withMessages(user([text('x', { cache_control: { type: 'persistent' } })])),
    'invalid_request',
    'messages[0].content[0].cache_control.type',
  ],
  [
    'tool_use in a user turn',
    withMessages(user([use('toolu_1')])),
    'invalid_request',
    'messages[0].content[0].type',
  ],
  [
    'tool_result in an assistant turn',
    withMessages(user(), assistant([result('toolu_1')])),
    'invalid_request',
    'messages[1].content[0].type',
  ],
  [
    'image in an assistant turn',
    withMessages(user(), assistant([image({ type: 'url', url: 'https://x' })])),
    'invalid_request',
    'messages[1].content[0].type',
  ],
  [
    'tool_use input not an object',
    withMessages(user(), assistant([use('toolu_1', '{"a":1}')])),
    'invalid_request',
    'messages[1].content[0].input',
  ],
  [
    'tool_use without id',
    withMessages(user(), assistant([{ type: 'tool_use', name: 'f', input: {} }])),
    'invalid_request',
    'messages[1].content[0].id',
  ],
  [
    'tool_result for no tool_use',
    withMessages(user([result('toolu_9')])),
    'invalid_request',
    'messages[0].content[0].tool_use_id',
  ],
  [
    'tool_result for an unknown id',
    withMessages(user(), assistant([use('toolu_1')]), user([result('toolu_1'), result('toolu_2')])),
    'invalid_request',
    'messages[2].content[1].tool_use_id',
  ],
  [
    'tool_use left unanswered',
    withMessages(user(), assistant([use('toolu_1'), use('toolu_2')]), user([result('toolu_1')])),
    'invalid_request',
    'messages[1].content',
  ],
  [
    'is_error not a boolean',
    withMessages(
      user(),
      assistant([use('toolu_1')]),
      user([result('toolu_1', { is_error: 'yes' })]),
    ),
    'invalid_request',
    'messages[2].content[0].is_error',
  ],
  [
    'tool_result with a tool_use inside',
    withMessages(
      user(),
      assistant([use('toolu_1')]),
      user([result('toolu_1', { content: [use('toolu_2')] })]),
    ),
    'invalid_request',
    'messages[2].content[0].content[0].type',
  ],
  [
    'thinking without signature',
    withMessages(user(), assistant([{ type: 'thinking', thinking: 'hm' }])),
    'invalid_request',
    'messages[1].content[0].signature',
  ],
  ['system as a number', base({ system: 5 }), 'invalid_request', 'system'],
  [
    'system image block',
    base({ system: [image({ type: 'url', url: 'https://x' })] }),
    'invalid_request',
    'system[0].type',
  ],
  [
    'whitespace stop sequence',
    base({ stop_sequences: ['END', ' \n'] }),
    'invalid_request',
    'stop_sequences[1]',
  ],
  [
    'stop_sequences as a string',
    base({ stop_sequences: 'END' }),
    'invalid_request',
    'stop_sequences',
  ],
  ['temperature above 1', base({ temperature: 1.5 }), 'invalid_request', 'temperature'],
  ['temperature null', base({ temperature: null }), 'invalid_request', 'temperature'],
  ['negative top_k', base({ top_k: -1 }), 'invalid_request', 'top_k'],
  ['top_p above 1', base({ top_p: 2 }), 'invalid_request', 'top_p'],
  ['stream as a string', base({ stream: 'true' }), 'invalid_request', 'stream'],
  [
    'chat function tool',
    withTools({ type: 'function', function: { name: 'f' } }),
    'unknown_tool_type',
    'tools[0].type',
  ],
  [
    'misspelled standard type',
    withTools({ type: 'syntic_memroy' }),
    'unknown_tool_type',
    'tools[0].type',
  ],
  [
    'provider tool type',
    withTools({ type: 'web_search_20250305', name: 'web_search' }),
    'unknown_tool_type',
    'tools[0].type',
  ],
  ['numeric tool type', withTools({ type: 3 }), 'invalid_request', 'tools[0].type'],
  [
    'standard tool listed twice',
    withTools({ type: 'syntic_memory' }, tool('f'), { type: 'syntic_memory', root: '/m' }),
    'duplicate_tool_type',
    'tools[2].type',
  ],
  [
    'tool using the reserved prefix',
    withTools(tool('syntic_shell')),
    'tool_name_conflict',
    'tools[0].name',
  ],
  [
    'custom-typed tool using the prefix',
    withTools(tool('SYNTIC_notes', { type: 'custom' })),
    'tool_name_conflict',
    'tools[0].name',
  ],
  [
    'tool without input_schema',
    withTools({ name: 'f' }),
    'invalid_request',
    'tools[0].input_schema',
  ],
  [
    'input_schema of an array',
    withTools(tool('f', { input_schema: { type: 'array' } })),
    'invalid_request',
    'tools[0].input_schema.type',
  ],
  [
    'chat parameters field',
    withTools(tool('f', { parameters: {} })),
    'unknown_parameter',
    'tools[0].parameters',
  ],
  ['tool name with a dot', withTools(tool('a.b')), 'invalid_request', 'tools[0].name'],
  ['duplicate tool names', withTools(tool('f'), tool('f')), 'invalid_request', 'tools[1].name'],
  [
    'option of another standard tool',
    withTools({ type: 'syntic_memory', max_output_chars: 5000 }),
    'invalid_request',
    'tools[0].max_output_chars',
  ],
  [
    'root with ..',
    withTools({ type: 'syntic_text_editor', root: '/w/../etc' }),
    'invalid_request',
    'tools[0].root',
  ],
  [
    'too many tools',
    withTools(...Array.from({ length: TOOLS_MAX + 1 }, (_, i) => tool(`t${i}`))),
    'too_many_tools',
    'tools',
  ],
  [
    'chat-style tool_choice',
    base({ tools: [tool('f')], tool_choice: 'auto' }),
    'invalid_request',
    'tool_choice',
  ],
  [
    'tool_choice type',
    base({ tools: [tool('f')], tool_choice: { type: 'required' } }),
    'invalid_request',
    'tool_choice.type',
  ],
  [
    'tool_choice names no tool',
    base({ tools: [tool('f')], tool_choice: { type: 'tool', name: 'g' } }),
    'invalid_request',
    'tool_choice.name',
  ],
  [
    'tool_choice any without tools',
    base({ tool_choice: { type: 'any' } }),
    'invalid_request',
    'tool_choice',
  ],
  [
    'tool_choice none with a parallel flag',
    base({ tools: [tool('f')], tool_choice: { type: 'none', disable_parallel_tool_use: true } }),
    'unknown_parameter',
    'tool_choice.disable_parallel_tool_use',
  ],
  [
    'thinking budget too small',
    base({ thinking: { type: 'enabled', budget_tokens: 100 } }),
    'invalid_request',
    'thinking.budget_tokens',
  ],
  [
    'thinking budget over max_tokens',
    base({ max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 2000 } }),
    'invalid_request',
    'thinking.budget_tokens',
  ],
  ['thinking type', base({ thinking: { type: 'on' } }), 'invalid_request', 'thinking.type'],
  [
    'metadata field',
    base({ metadata: { user_id: 'u', team: 't' } }),
    'unknown_parameter',
    'metadata.team',
  ],
  ['service_tier word', base({ service_tier: 'premium' }), 'invalid_request', 'service_tier'],
  [
    'mcp server without url',
    base({ mcp_servers: [{ type: 'url', name: 'x' }] }),
    'invalid_request',
    'mcp_servers[0].url',
  ],
  [
    'deep tool input',
    withMessages(user(), assistant([use('toolu_1', nested(200))])),
    'invalid_request',
    null,
  ],
]

describe('validateMessagesRequest: bad requests', () => {
  it('has a table of at least 60 cases', () => assert.ok(BAD.length >= 60, `${BAD.length}`))
  for (const [what, body, code, param] of BAD) {
    it(`${what} -> ${code} at ${param ?? '(see test)'}`, () => {
      const check = validateMessagesRequest(body)
      assert.equal(check.ok, false, 'accepted')
      if (check.ok) return
      assert.equal(check.problem.code, code, check.problem.message)
      if (what === 'deep tool input') {
        assert.ok(check.problem.param?.startsWith('messages[1].content[0].input.a.a'))
      } else {
        assert.equal(check.problem.param, param, check.problem.message)
      }
    })
  }

  it('tells a caller porting from chat how a client tool looks here', () => {
    const check = validateMessagesRequest(withTools({ type: 'function', function: { name: 'f' } }))
    assert.ok(!check.ok && check.problem.message.includes('input_schema'))
  })

  it('points provider tool types at the standard tools', () => {
    const editor = validateMessagesRequest(withTools({ type: 'text_editor_20250728', name: 'e' }))
    assert.ok(!editor.ok && /Did you mean "syntic_text_editor"/.test(editor.problem.message))
    const memory = validateMessagesRequest(withTools({ type: 'memory_20250818', name: 'memory' }))
    assert.ok(!memory.ok && /Did you mean "syntic_memory"/.test(memory.problem.message))
  })
})

describe('validateMessagesRequest: good requests', () => {
  const GOOD: [string, Body][] = [
    ['minimal', base()],
    [
      'the spec example in messages form',
      base({
        tools: [
          { type: 'syntic_text_editor', root: '/workspace' },
          { type: 'syntic_shell', max_output_chars: 20000 },
        ],
        messages: [user('The tests in tests/test_dates.py fail. Find the bug and fix it.')],
      }),
    ],
    [
      'every tool kind',
      withTools(
        tool('get_weather', {
          description: 'Weather',
          strict: true,
          cache_control: { type: 'ephemeral' },
        }),
        tool('lookup', { type: 'custom', input_examples: [{ q: 'x' }], defer_loading: false }),
        tool('notes', { type: null }),
        { type: 'syntic_text_editor', root: '/workspace' },
        { type: 'syntic_shell', max_output_chars: 20000 },
        { type: 'syntic_memory', root: '/memories' },
      ),
    ],
    [
      'a tool round with several results, an error and an image result',
      base({
        tools: [tool('get_weather')],
        tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: false },
        messages: [
          user(),
          assistant([
            { type: 'thinking', thinking: 'Two cities.', signature: 'sig' },
            text('Checking.'),
            use('toolu_1', { city: 'Paris' }),
            use('toolu_2', { city: 'Rome' }),
          ]),
          user([
            result('toolu_2', { is_error: true, content: 'Error: timeout' }),
            result('toolu_1', {
              content: [text('rain'), image({ type: 'url', url: 'https://x/radar.png' })],
            }),
            text('Also, hurry.'),
          ]),
          assistant('Paris has rain'),
        ],
      }),
    ],
    [
      'images, documents, system blocks and a system turn',
      base({
        system: [text('Be brief.', { cache_control: { type: 'ephemeral', ttl: '1h' } })],
        messages: [
          user([
            image({ type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }),
            image({ type: 'url', url: 'https://example.com/a.jpg' }),
            image({ type: 'file', file_id: 'file_1' }),
            {
              type: 'document',
              source: { type: 'text', media_type: 'text/plain', data: 'notes' },
              title: 'Notes',
            },
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' },
            },
            { type: 'document', source: { type: 'content', content: [text('inline')] } },
            text('Describe these.'),
          ]),
          { role: 'system', content: 'Answer in French.' },
          user('Go'),
          assistant(''),
        ],
      }),
    ],
    [
      'every optional field',
      base({
        max_tokens: 4096,
        system: 'You are helpful.',
        metadata: { user_id: 'u1' },
        stop_sequences: ['END'],
        stream: true,
        temperature: 0.5,
        top_p: 0.9,
        top_k: 40,
        tools: [tool('f')],
        tool_choice: { type: 'auto', disable_parallel_tool_use: true },
        thinking: { type: 'enabled', budget_tokens: THINKING_BUDGET_MIN, display: 'summarized' },
        service_tier: 'auto',
        container: 'cntr_1',
        mcp_servers: [{ type: 'url', url: 'https://mcp.example.com', name: 'ex' }],
        cache_control: { type: 'ephemeral' },
        context_management: { edits: [] },
        diagnostics: { previous_message_id: 'msg_1' },
        inference_geo: 'us',
        output_config: { effort: 'low' },
        speed: 'fast',
        user_profile_id: 'p',
        workspace_id: 'w',
      }),
    ],
  ]
  for (const [what, body] of GOOD) {
    it(`accepts ${what}, returning the body itself`, () => {
      const check = validateMessagesRequest(body)
      assert.ok(check.ok, check.ok ? '' : `${check.problem.param}: ${check.problem.message}`)
      assert.equal(check.value, body)
    })
  }
})

describe('validateMessagesRequest: hostile input', () => {
  it('rejects 10,000 levels of nesting anywhere without exhausting the stack', () => {
    const deep = nested(10_000)
    for (const body of [
      withTools(tool('f', { input_schema: { type: 'object', properties: deep } })),
      withMessages(user(), assistant([use('toolu_1', deep)])),
      base({ output_config: deep }),
      base({ messages: [user([deep])] }),
    ]) {
      const check = validateMessagesRequest(body)
      assert.equal(check.ok, false)
      if (!check.ok) assert.equal(check.problem.code, 'invalid_request')
    }
  })

  it(`accepts ${TOOLS_MAX} tools`, () => {
    const tools = Array.from({ length: TOOLS_MAX }, (_, i) => tool(`tool_${i}`))
    assert.ok(validateMessagesRequest(withTools(...tools)).ok)
  })

  it('accepts huge strings and keeps error messages short', () => {
    const huge = 'y'.repeat(5_000_000)
    assert.ok(validateMessagesRequest(withMessages(user(huge))).ok)
    const bad = validateMessagesRequest(base({ service_tier: huge }))
    assert.ok(!bad.ok && bad.problem.message.length < 300)
  })

  it('treats __proto__ keys as unknown fields', () => {
    const cases: [string, string][] = [
      [
        '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"__proto__":{"a":1}}',
        '__proto__',
      ],
      [
        '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"x","__proto__":{}}]}]}',
        'messages[0].content[0].__proto__',
      ],
      [
        '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"metadata":{"__proto__":{}}}',
        'metadata.__proto__',
      ],
      [
        '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","input_schema":{"type":"object"},"__proto__":{}}]}',
        'tools[0].__proto__',
      ],
    ]
    for (const [text, param] of cases) {
      const check = validateMessagesRequest(JSON.parse(text))
      assert.ok(!check.ok)
      if (check.ok) continue
      assert.equal(check.problem.code, 'unknown_parameter')
      assert.equal(check.problem.param, param)
    }
    assert.equal(({} as Record<string, unknown>).a, undefined)
  })

  it('validates a 1 MB request of 500 messages', () => {
    const messages = Array.from({ length: 500 }, (_, i) =>
      i % 2 === 0 ? user([text('q'.repeat(2000))]) : assistant('a'.repeat(2000)),
    )
    const body = base({ messages })
    assert.ok(JSON.stringify(body).length > 1_000_000)
    assert.ok(validateMessagesRequest(body).ok)
  })
})
