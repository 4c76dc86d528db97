import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CHAT_STOP_MAX, JSON_DEPTH_MAX, TOOLS_MAX } from './request-limits.js'
import { validateChatRequest } from './validate.js'

type Body = Record<string, unknown>

const user = (content: unknown = 'Hello'): Body => ({ role: 'user', content })
const base = (over: Body = {}): Body => ({ model: 'Syntic Code', messages: [user()], ...over })
const withMessages = (...messages: unknown[]): Body => base({ messages })
const withTools = (...tools: unknown[]): Body => base({ tools })
const fn = (name: string, extra: Body = {}): Body => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} }, ...extra },
})
const call = (id: string, name = 'get_weather', args = '{}'): Body => ({
  id,
  type: 'function',
  function: { name, arguments: args },
})
const assistantCalls = (...ids: string[]): Body => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => call(id)),
})
const toolAnswer = (id: string, content: unknown = 'sunny'): Body => ({
  role: 'tool',
  tool_call_id: id,
  content,
})
const nested = (depth: number): unknown => {
  let value: unknown = 'leaf'
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

/** The spec's example request (spec: standard-tools, Examples). */
const SPEC_EXAMPLE = JSON.parse(`{
  "model": "Syntic Code",
  "stream": false,
  "tools": [
    { "type": "syntic_text_editor", "root": "/workspace" },
    { "type": "syntic_shell", "max_output_chars": 20000 }
  ],
  "messages": [{ "role": "user", "content": "The tests in tests/test_dates.py fail. Find the bug and fix it." }]
}`)

/** [what is wrong, body, expected code, expected param] */
const BAD: [string, unknown, string, string | null][] = [
  ['null body', null, 'invalid_request', null],
  ['array body', [base()], 'invalid_request', null],
  ['string body', '{"model":"m"}', 'invalid_request', null],
  ['number body', 42, 'invalid_request', null],
  ['undefined body', undefined, 'invalid_request', null],
  ['missing model', { messages: [user()] }, 'invalid_request', 'model'],
  ['empty model', base({ model: '' }), 'invalid_request', 'model'],
  ['numeric model', base({ model: 4 }), 'invalid_request', 'model'],
  ['unknown field', base({ foo: 1 }), 'unknown_parameter', 'foo'],
  ['messages-API field', base({ stop_sequences: ['x'] }), 'unknown_parameter', 'stop_sequences'],
  ['missing messages', { model: 'm' }, 'invalid_request', 'messages'],
  ['empty messages', base({ messages: [] }), 'invalid_request', 'messages'],
  ['messages not an array', base({ messages: {} }), 'invalid_request', 'messages'],
  ['message not an object', withMessages('hi'), 'invalid_request', 'messages[0]'],
  ['missing role', withMessages({ content: 'x' }), 'invalid_request', 'messages[0].role'],
  [
    'unknown role',
    withMessages({ role: 'robot', content: 'x' }),
    'invalid_request',
    'messages[0].role',
  ],
  [
    'unknown message field',
    withMessages({ ...user(), foo: 1 }),
    'unknown_parameter',
    'messages[0].foo',
  ],
  [
    'tool field on a user message',
    withMessages({ ...user(), tool_call_id: 'x' }),
    'unknown_parameter',
    'messages[0].tool_call_id',
  ],
  ['numeric content', withMessages(user(5)), 'invalid_request', 'messages[0].content'],
  [
    'missing user content',
    withMessages({ role: 'user' }),
    'invalid_request',
    'messages[0].content',
  ],
  [
    'unknown part type',
    withMessages(user([{ type: 'video', url: 'x' }])),
    'invalid_request',
    'messages[0].content[0].type',
  ],
  [
    'part without text',
    withMessages(user([{ type: 'text' }])),
    'invalid_request',
    'messages[0].content[0].text',
  ],
  ['part not an object', withMessages(user(['hi'])), 'invalid_request', 'messages[0].content[0]'],
  [
    'unknown part field',
    withMessages(user([{ type: 'text', text: 'x', cache: true }])),
    'unknown_parameter',
    'messages[0].content[0].cache',
  ],
  [
    'image without url',
    withMessages(user([{ type: 'image_url', image_url: {} }])),
    'invalid_request',
    'messages[0].content[0].image_url.url',
  ],
  [
    'image url scheme',
    withMessages(user([{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }])),
    'invalid_request',
    'messages[0].content[0].image_url.url',
  ],
  [
    'image detail',
    withMessages(
      user([{ type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'ultra' } }]),
    ),
    'invalid_request',
    'messages[0].content[0].image_url.detail',
  ],
  [
    'image_url not an object',
    withMessages(user([{ type: 'image_url', image_url: 'https://x/y.png' }])),
    'invalid_request',
    'messages[0].content[0].image_url',
  ],
  [
    'audio format',
    withMessages(user([{ type: 'input_audio', input_audio: { data: 'AA', format: 'ogg' } }])),
    'invalid_request',
    'messages[0].content[0].input_audio.format',
  ],
  [
    'file without data or id',
    withMessages(user([{ type: 'file', file: { filename: 'a.pdf' } }])),
    'invalid_request',
    'messages[0].content[0].file',
  ],
  [
    'cache breakpoint mode',
    withMessages(user([{ type: 'text', text: 'x', prompt_cache_breakpoint: { mode: 'always' } }])),
    'invalid_request',
    'messages[0].content[0].prompt_cache_breakpoint.mode',
  ],
  [
    'image in a system message',
    withMessages(
      { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x' } }] },
      user(),
    ),
    'invalid_request',
    'messages[0].content[0].type',
  ],
  [
    'assistant without content or calls',
    withMessages(user(), { role: 'assistant', content: null }),
    'invalid_request',
    'messages[1].content',
  ],
  [
    'assistant image part',
    withMessages(user(), { role: 'assistant', content: [{ type: 'image_url' }] }),
    'invalid_request',
    'messages[1].content[0].type',
  ],
  [
    'tool call type',
    withMessages(user(), { role: 'assistant', tool_calls: [{ ...call('c1'), type: 'code' }] }),
    'invalid_request',
    'messages[1].tool_calls[0].type',
  ],
  [
    'tool call without id',
    withMessages(user(), {
      role: 'assistant',
      tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }],
    }),
    'invalid_request',
    'messages[1].tool_calls[0].id',
  ],
  [
    'tool call arguments as object',
    withMessages(user(), {
      role: 'assistant',
      tool_calls: [call('c1', 'f', {} as unknown as string)],
    }),
    'invalid_request',
    'messages[1].tool_calls[0].function.arguments',
  ],
  [
    'duplicate tool call ids',
    withMessages(user(), assistantCalls('c1', 'c1')),
    'invalid_request',
    'messages[1].tool_calls[1].id',
  ],
  [
    'tool message with no call before it',
    withMessages(user(), toolAnswer('c1')),
    'invalid_request',
    'messages[1].tool_call_id',
  ],
  [
    'tool message answering an unknown call',
    withMessages(user(), assistantCalls('c1'), toolAnswer('c2')),
    'invalid_request',
    'messages[2].tool_call_id',
  ],
  [
    'tool call left unanswered',
    withMessages(user(), assistantCalls('c1', 'c2'), toolAnswer('c1'), user()),
    'invalid_request',
    'messages[1].tool_calls',
  ],
  [
    'tool message without tool_call_id',
    withMessages(user(), assistantCalls('c1'), { role: 'tool', content: 'x' }),
    'invalid_request',
    'messages[2].tool_call_id',
  ],
  [
    'tool message image part',
    withMessages(
      user(),
      assistantCalls('c1'),
      toolAnswer('c1', [{ type: 'image_url', image_url: { url: 'https://x' } }]),
    ),
    'invalid_request',
    'messages[2].content[0].type',
  ],
  [
    'function message without name',
    withMessages(user(), { role: 'function', content: 'x' }),
    'invalid_request',
    'messages[1].name',
  ],
  ['tools not an array', base({ tools: {} }), 'invalid_request', 'tools'],
  ['tool not an object', withTools('syntic_shell'), 'invalid_request', 'tools[0]'],
  ['tool without type', withTools({ function: { name: 'f' } }), 'invalid_request', 'tools[0].type'],
  ['tool type not a string', withTools({ type: 5 }), 'invalid_request', 'tools[0].type'],
  [
    'misspelled standard type',
    withTools({ type: 'syntic_shel' }),
    'unknown_tool_type',
    'tools[0].type',
  ],
  [
    'standard type without prefix',
    withTools(fn('f'), { type: 'text_editor' }),
    'unknown_tool_type',
    'tools[1].type',
  ],
  ['provider tool type', withTools({ type: 'web_search' }), 'unknown_tool_type', 'tools[0].type'],
  [
    'standard tool listed twice',
    withTools({ type: 'syntic_shell' }, fn('f'), { type: 'syntic_shell', max_output_chars: 5000 }),
    'duplicate_tool_type',
    'tools[2].type',
  ],
  [
    'function using the reserved prefix',
    withTools(fn('syntic_search')),
    'tool_name_conflict',
    'tools[0].function.name',
  ],
  [
    'function named like a standard tool',
    withTools(fn('Syntic_Shell')),
    'tool_name_conflict',
    'tools[0].function.name',
  ],
  [
    'custom tool using the reserved prefix',
    withTools({ type: 'custom', custom: { name: 'syntic_x' } }),
    'tool_name_conflict',
    'tools[0].custom.name',
  ],
  [
    'legacy function using the reserved prefix',
    base({ functions: [{ name: 'syntic_memory' }] }),
    'tool_name_conflict',
    'functions[0].name',
  ],
  [
    'function name with a space',
    withTools(fn('get weather')),
    'invalid_request',
    'tools[0].function.name',
  ],
  [
    'function name of 65 characters',
    withTools(fn('a'.repeat(65))),
    'invalid_request',
    'tools[0].function.name',
  ],
  [
    'duplicate function names',
    withTools(fn('f'), fn('f')),
    'invalid_request',
    'tools[1].function.name',
  ],
  [
    'function tool without function',
    withTools({ type: 'function' }),
    'invalid_request',
    'tools[0].function',
  ],
  [
    'misspelled function field',
    withTools(fn('f', { parameter: {} })),
    'unknown_parameter',
    'tools[0].function.parameter',
  ],
  [
    'unknown tool field',
    withTools({ ...fn('f'), strict: true }),
    'unknown_parameter',
    'tools[0].strict',
  ],
  [
    'parameters not an object',
    withTools(fn('f', { parameters: 'object' })),
    'invalid_request',
    'tools[0].function.parameters',
  ],
  [
    'custom tool grammar syntax',
    withTools({
      type: 'custom',
      custom: {
        name: 'c',
        format: { type: 'grammar', grammar: { definition: 'x', syntax: 'peg' } },
      },
    }),
    'invalid_request',
    'tools[0].custom.format.grammar.syntax',
  ],
  [
    'shell output limit too small',
    withTools({ type: 'syntic_shell', max_output_chars: 10 }),
    'invalid_request',
    'tools[0].max_output_chars',
  ],
  [
    'editor root not absolute',
    withTools({ type: 'syntic_text_editor', root: 'workspace' }),
    'invalid_request',
    'tools[0].root',
  ],
  [
    'root on the shell',
    withTools({ type: 'syntic_shell', root: '/w' }),
    'invalid_request',
    'tools[0].root',
  ],
  [
    'unknown option on memory',
    withTools({ type: 'syntic_memory', path: '/m' }),
    'invalid_request',
    'tools[0].path',
  ],
  [
    'too many tools',
    withTools(...Array.from({ length: TOOLS_MAX + 1 }, (_, i) => fn(`f${i}`))),
    'too_many_tools',
    'tools',
  ],
  ['tool_choice word', base({ tool_choice: 'sometimes' }), 'invalid_request', 'tool_choice'],
  [
    'tool_choice names no tool',
    base({ tools: [fn('f')], tool_choice: { type: 'function', function: { name: 'g' } } }),
    'invalid_request',
    'tool_choice.function.name',
  ],
  [
    'tool_choice required without tools',
    base({ tool_choice: 'required' }),
    'invalid_request',
    'tool_choice',
  ],
  [
    'tool_choice unknown field',
    base({
      tools: [fn('f')],
      tool_choice: { type: 'function', function: { name: 'f' }, strict: true },
    }),
    'unknown_parameter',
    'tool_choice.strict',
  ],
  ['temperature above 2', base({ temperature: 3 }), 'invalid_request', 'temperature'],
  ['temperature as a string', base({ temperature: '1' }), 'invalid_request', 'temperature'],
  ['top_p below 0', base({ top_p: -0.1 }), 'invalid_request', 'top_p'],
  ['n of 0', base({ n: 0 }), 'invalid_request', 'n'],
  ['fractional n', base({ n: 1.5 }), 'invalid_request', 'n'],
  ['max_tokens of 0', base({ max_tokens: 0 }), 'invalid_request', 'max_tokens'],
  ['fractional max_tokens', base({ max_tokens: 10.5 }), 'invalid_request', 'max_tokens'],
  [
    'negative max_completion_tokens',
    base({ max_completion_tokens: -1 }),
    'invalid_request',
    'max_completion_tokens',
  ],
  [
    'too many stop sequences',
    base({ stop: Array.from({ length: CHAT_STOP_MAX + 1 }, (_, i) => `s${i}`) }),
    'invalid_request',
    'stop',
  ],
  ['numeric stop sequence', base({ stop: ['a', 1] }), 'invalid_request', 'stop[1]'],
  ['stream as a string', base({ stream: 'yes' }), 'invalid_request', 'stream'],
  [
    'stream_options without stream',
    base({ stream_options: { include_usage: true } }),
    'invalid_request',
    'stream_options',
  ],
  [
    'stream_options unknown field',
    base({ stream: true, stream_options: { usage: true } }),
    'unknown_parameter',
    'stream_options.usage',
  ],
  [
    'parallel_tool_calls null',
    base({ parallel_tool_calls: null }),
    'invalid_request',
    'parallel_tool_calls',
  ],
  [
    'logit bias out of range',
    base({ logit_bias: { '50256': 200 } }),
    'invalid_request',
    'logit_bias.50256',
  ],
  ['top_logprobs without logprobs', base({ top_logprobs: 2 }), 'invalid_request', 'top_logprobs'],
  [
    'response_format type',
    base({ response_format: { type: 'xml' } }),
    'invalid_request',
    'response_format.type',
  ],
  [
    'json_schema without a name',
    base({ response_format: { type: 'json_schema', json_schema: { schema: {} } } }),
    'invalid_request',
    'response_format.json_schema.name',
  ],
  ['metadata value not a string', base({ metadata: { k: 1 } }), 'invalid_request', 'metadata.k'],
  [
    'reasoning_effort word',
    base({ reasoning_effort: 'extreme' }),
    'invalid_request',
    'reasoning_effort',
  ],
  [
    'presence_penalty above 2',
    base({ presence_penalty: 3 }),
    'invalid_request',
    'presence_penalty',
  ],
  ['fractional seed', base({ seed: 1.5 }), 'invalid_request', 'seed'],
  ['user as a number', base({ user: 5 }), 'invalid_request', 'user'],
  [
    'prediction type',
    base({ prediction: { type: 'text', content: 'x' } }),
    'invalid_request',
    'prediction.type',
  ],
  ['service_tier word', base({ service_tier: 'gold' }), 'invalid_request', 'service_tier'],
  ['NaN temperature', base({ temperature: Number.NaN }), 'invalid_request', 'temperature'],
]

describe('validateChatRequest: bad requests', () => {
  it('has a table of at least 60 cases', () => assert.ok(BAD.length >= 60, `${BAD.length}`))
  for (const [what, body, code, param] of BAD) {
    it(`${what} -> ${code} at ${param}`, () => {
      const check = validateChatRequest(body)
      assert.equal(check.ok, false, 'accepted')
      if (check.ok) return
      assert.equal(check.problem.code, code, check.problem.message)
      assert.equal(check.problem.param, param, check.problem.message)
      assert.ok(check.problem.message.length > 10)
    })
  }

  it('says what was expected and what came', () => {
    const check = validateChatRequest(base({ temperature: 'hot' }))
    assert.equal(check.ok, false)
    if (check.ok) return
    assert.match(check.problem.message, /from 0 to 2/)
    assert.match(check.problem.message, /"hot"/)
  })

  it('suggests the closest type name for a typo, and Syntic names for provider tools', () => {
    const typo = validateChatRequest(withTools({ type: 'syntic_text_edtor' }))
    assert.ok(!typo.ok && /Did you mean "syntic_text_editor"/.test(typo.problem.message))
    const bash = validateChatRequest(withTools({ type: 'bash_20250124' }))
    assert.ok(!bash.ok && /Did you mean "syntic_shell"/.test(bash.problem.message))
    const far = validateChatRequest(withTools({ type: 'image_generation' }))
    assert.ok(!far.ok && !/Did you mean/.test(far.problem.message))
    assert.ok(!far.ok && far.problem.message.includes('syntic_memory'))
  })

  it('suggests the parameter meant by a misspelled field', () => {
    const check = validateChatRequest(base({ max_token: 5 }))
    assert.ok(!check.ok && /Did you mean "max_tokens"/.test(check.problem.message))
  })

  it('points a reserved function name at the standard tool', () => {
    const check = validateChatRequest(withTools(fn('syntic_shell')))
    assert.ok(!check.ok && check.problem.message.includes('{ "type": "syntic_shell" }'))
  })
})

describe('validateChatRequest: good requests', () => {
  const GOOD: [string, Body][] = [
    ['minimal', base()],
    ['the spec example', SPEC_EXAMPLE],
    [
      'every tool kind',
      withTools(
        fn('get_weather', { description: 'Weather', strict: true }),
        { type: 'custom', custom: { name: 'sql', description: 'SQL', format: { type: 'text' } } },
        {
          type: 'custom',
          custom: {
            name: 'calc',
            format: { type: 'grammar', grammar: { definition: 'start: NUMBER', syntax: 'lark' } },
          },
        },
        { type: 'syntic_text_editor', root: '/workspace' },
        { type: 'syntic_shell', max_output_chars: 20000 },
        { type: 'syntic_memory' },
      ),
    ],
    [
      'a tool round with several results and n > 1',
      base({
        n: 3,
        tools: [fn('get_weather'), { type: 'syntic_shell' }],
        tool_choice: { type: 'function', function: { name: 'syntic_shell' } },
        messages: [
          { role: 'system', content: 'Be brief.' },
          user(),
          { ...assistantCalls('call_1', 'call_2'), content: 'Checking.' },
          toolAnswer('call_2'),
          toolAnswer('call_1', [{ type: 'text', text: 'rain' }]),
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Rain.' },
              { type: 'refusal', refusal: 'no' },
            ],
          },
          user('thanks'),
        ],
      }),
    ],
    [
      'images, audio and files',
      withMessages(
        user([
          { type: 'text', text: 'What is this?', prompt_cache_breakpoint: { mode: 'explicit' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'high' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
          { type: 'file', file: { file_id: 'file_1' } },
        ]),
      ),
    ],
    [
      'every optional field',
      base({
        messages: [{ role: 'developer', content: [{ type: 'text', text: 'Rules' }] }, user()],
        tools: [fn('f')],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        stream: true,
        stream_options: { include_usage: true, include_obfuscation: false },
        temperature: 0.2,
        top_p: 1,
        n: 1,
        stop: ['END'],
        max_tokens: 100,
        max_completion_tokens: 200,
        presence_penalty: -1,
        frequency_penalty: 1,
        logit_bias: { '50256': -100 },
        logprobs: true,
        top_logprobs: 5,
        user: 'u1',
        safety_identifier: 'hash',
        seed: 42,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'out', schema: { type: 'object' }, strict: true },
        },
        metadata: { team: 'a' },
        store: false,
        reasoning_effort: 'low',
        service_tier: 'auto',
        modalities: ['text'],
        prediction: { type: 'content', content: 'draft' },
        audio: { format: 'mp3', voice: 'alloy' },
        web_search_options: { search_context_size: 'low' },
        verbosity: 'low',
        prompt_cache_key: 'k',
        prompt_cache_retention: '24h',
        prompt_cache_options: { mode: 'explicit', ttl: '30m' },
        moderation: { model: 'omni-moderation-latest' },
      }),
    ],
    [
      'null for every nullable field',
      base({
        temperature: null,
        top_p: null,
        n: null,
        stop: null,
        max_tokens: null,
        stream: null,
        stream_options: null,
        logit_bias: null,
        seed: null,
        metadata: null,
      }),
    ],
    [
      'legacy functions',
      base({
        functions: [{ name: 'f', parameters: { type: 'object' } }],
        function_call: { name: 'f' },
        messages: [
          user(),
          { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
          { role: 'function', name: 'f', content: 'done' },
        ],
      }),
    ],
  ]
  for (const [what, body] of GOOD) {
    it(`accepts ${what}, returning the body itself`, () => {
      const check = validateChatRequest(body)
      assert.ok(check.ok, check.ok ? '' : `${check.problem.param}: ${check.problem.message}`)
      assert.equal(check.value, body)
    })
  }
})

describe('validateChatRequest: hostile input', () => {
  it('rejects 10,000 levels of nesting anywhere without exhausting the stack', () => {
    const deep = nested(10_000)
    for (const body of [
      base({ metadata: deep }),
      withTools(fn('f', { parameters: deep })),
      base({ web_search_options: { user_location: deep } }),
      withMessages(user([deep])),
      JSON.parse(
        `{"model":"m","messages":[{"role":"user","content":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`,
      ),
    ]) {
      const check = validateChatRequest(body)
      assert.equal(check.ok, false)
      if (check.ok) continue
      assert.equal(check.problem.code, 'invalid_request')
      assert.ok(check.problem.param !== null && check.problem.param.length <= 300)
    }
  })

  it(`accepts nesting up to ${JSON_DEPTH_MAX} levels`, () => {
    // body (1) > tools (2) > [0] (3) > function (4) > parameters, the first of the nested objects
    const check = validateChatRequest(
      withTools(fn('f', { parameters: nested(JSON_DEPTH_MAX - 4) })),
    )
    assert.ok(check.ok, check.ok ? '' : check.problem.message)
    const over = validateChatRequest(withTools(fn('f', { parameters: nested(JSON_DEPTH_MAX - 3) })))
    assert.ok(!over.ok && over.problem.param?.startsWith('tools[0].function.parameters.a'))
  })

  it(`accepts ${TOOLS_MAX} tools`, () => {
    const tools = Array.from({ length: TOOLS_MAX }, (_, i) => fn(`tool_${i}`))
    assert.ok(validateChatRequest(withTools(...tools)).ok)
  })

  it('accepts huge strings and keeps error messages short', () => {
    const huge = 'x'.repeat(5_000_000)
    assert.ok(validateChatRequest(withMessages(user(huge))).ok)
    const bad = validateChatRequest(base({ model: 7, [huge]: 1 }))
    assert.ok(!bad.ok)
    if (bad.ok) return
    assert.equal(bad.problem.code, 'unknown_parameter')
    assert.ok(bad.problem.message.length < 2000)
    assert.ok((bad.problem.param ?? '').length < 100)
    const typed = validateChatRequest(base({ model: huge, temperature: huge }))
    assert.ok(!typed.ok && typed.problem.message.length < 200)
  })

  it('treats __proto__ keys as unknown fields and never touches prototypes', () => {
    const bodies = [
      '{"model":"m","messages":[{"role":"user","content":"x"}],"__proto__":{"polluted":1}}',
      '{"model":"m","messages":[{"role":"user","content":"x","__proto__":{"polluted":1}}]}',
      '{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","__proto__":{"polluted":1}}}]}',
      '{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"syntic_shell","__proto__":{"polluted":1}}]}',
    ]
    const params = ['__proto__', 'messages[0].__proto__', 'tools[0].function.__proto__']
    bodies.forEach((text, i) => {
      const check = validateChatRequest(JSON.parse(text))
      assert.equal(check.ok, false)
      if (check.ok) return
      if (i < 3) assert.equal(check.problem.param, params[i])
      else assert.equal(check.problem.param, 'tools[0].__proto__')
    })
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
  })

  it('accepts __proto__ as a metadata key without polluting anything', () => {
    const check = validateChatRequest(
      JSON.parse(
        '{"model":"m","messages":[{"role":"user","content":"x"}],"metadata":{"__proto__":"v"}}',
      ),
    )
    assert.ok(check.ok)
    assert.equal(({} as Record<string, unknown>).v, undefined)
  })

  it('validates a 1 MB request of 500 messages', () => {
    const messages = Array.from({ length: 500 }, (_, i) =>
      i % 2 === 0 ? user('q'.repeat(2000)) : { role: 'assistant', content: 'a'.repeat(2000) },
    )
    const body = base({ messages })
    assert.ok(JSON.stringify(body).length > 1_000_000)
    assert.ok(validateChatRequest(body).ok)
  })
})
