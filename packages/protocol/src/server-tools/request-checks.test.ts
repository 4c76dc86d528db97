// Tool search on both request validators: the search tool entry, defer_loading, mcp_servers, the
// spec's three errors, and the records assistant messages carry back.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { validateChatRequest } from '../chat/validate.js'
import { validateMessagesRequest } from '../messages/validate.js'

type Body = Record<string, unknown>

const search = (extra: Body = {}): Body => ({ type: 'syntic_tool_search', ...extra })

// Chat
const fn = (name: string, defer?: unknown): Body => ({
  type: 'function',
  ...(defer === undefined ? {} : { defer_loading: defer }),
  function: { name, description: `Does ${name}.`, parameters: { type: 'object' } },
})
const chat = (over: Body = {}): Body => ({
  model: 'Amara S1.2',
  messages: [{ role: 'user', content: 'Refund £12.50 on order 582131.' }],
  ...over,
})
const chatTools = (...tools: unknown[]): Body => chat({ tools })
const chatHistory = (assistant: Body, tools: unknown[] = [fn('get_order')]): Body =>
  chat({
    tools,
    messages: [
      { role: 'user', content: 'Refund order 582131.' },
      { role: 'assistant', content: '', ...assistant },
      { role: 'user', content: 'Again please.' },
    ],
  })
const searchCall = (extra: Body = {}): Body => ({
  id: 'srv_05',
  type: 'syntic_tool_search',
  query: 'refund an order',
  loaded: ['create_refund', 'get_order'],
  status: 'ok',
  ...extra,
})

// Messages
const tool = (name: string, defer?: unknown): Body => ({
  name,
  description: `Does ${name}.`,
  input_schema: { type: 'object' },
  ...(defer === undefined ? {} : { defer_loading: defer }),
})
const messages = (over: Body = {}): Body => ({
  model: 'Amara S1.2',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'Refund £12.50 on order 582131.' }],
  ...over,
})
const messagesTools = (...tools: unknown[]): Body => messages({ tools })
const serverUse = (id = 'srv_05', extra: Body = {}): Body => ({
  type: 'server_tool_use',
  id,
  name: 'syntic_tool_search',
  input: { query: 'refund an order' },
  ...extra,
})
const searchResult = (id = 'srv_05', extra: Body = {}): Body => ({
  type: 'syntic_tool_search_result',
  tool_use_id: id,
  loaded: ['create_refund'],
  status: 'ok',
  ...extra,
})
const messagesHistory = (...blocks: unknown[]): Body =>
  messages({
    messages: [
      { role: 'user', content: 'Refund order 582131.' },
      { role: 'assistant', content: blocks },
      { role: 'user', content: 'Again please.' },
    ],
  })

const server = (extra: Body = {}): Body => ({
  type: 'url',
  url: 'https://mcp.example.com/sse',
  name: 'shop',
  ...extra,
})
const names = (n: number, prefix = 'tool_'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`)

type Validate = (
  body: unknown,
) => ReturnType<typeof validateChatRequest | typeof validateMessagesRequest>

function expectProblem(
  validate: Validate,
  body: unknown,
  code: string,
  param: string | null,
): string {
  const check = validate(body)
  assert.equal(check.ok, false, 'accepted')
  if (check.ok) return ''
  assert.equal(check.problem.code, code, check.problem.message)
  assert.equal(check.problem.param, param, check.problem.message)
  return check.problem.message
}

function expectOk(validate: Validate, body: unknown): void {
  const check = validate(body)
  assert.ok(check.ok, check.ok ? '' : `${check.problem.param}: ${check.problem.message}`)
}

/** Cases both endpoints share: [what, tools (per endpoint), extra fields, code, param] */
function sharedCases(
  make: (name: string, defer?: unknown) => Body,
): [string, unknown[], Body, string, string][] {
  return [
    [
      'deferred tool without search',
      [make('a'), make('b', true)],
      {},
      'tool_search_required',
      'tools[1].defer_loading',
    ],
    [
      'deferred MCP server without search',
      [make('a')],
      { mcp_servers: [server({ defer_loading: true })] },
      'tool_search_required',
      'mcp_servers[0].defer_loading',
    ],
    [
      'defer_loading on a standard tool',
      [search(), { type: 'syntic_shell', defer_loading: true }],
      {},
      'unknown_parameter',
      'tools[1].defer_loading',
    ],
    [
      'defer_loading false on a standard tool',
      [{ type: 'syntic_memory', defer_loading: false }],
      {},
      'unknown_parameter',
      'tools[0].defer_loading',
    ],
    [
      'defer_loading on the search tool',
      [search({ defer_loading: true })],
      {},
      'unknown_parameter',
      'tools[0].defer_loading',
    ],
    [
      'defer_loading as a string',
      [search(), make('a', 'true')],
      {},
      'invalid_request',
      'tools[1].defer_loading',
    ],
    [
      'two search tools',
      [search(), make('a'), search({ mode: 'semantic' })],
      {},
      'duplicate_tool_type',
      'tools[2].type',
    ],
    [
      'search tool with an unknown key',
      [search({ query: 'x' })],
      {},
      'unknown_parameter',
      'tools[0].query',
    ],
    ['mode fuzzy', [search({ mode: 'fuzzy' })], {}, 'invalid_request', 'tools[0].mode'],
    ['max_results 0', [search({ max_results: 0 })], {}, 'invalid_request', 'tools[0].max_results'],
    [
      'max_results 11',
      [search({ max_results: 11 })],
      {},
      'invalid_request',
      'tools[0].max_results',
    ],
    [
      'max_results 2.5',
      [search({ max_results: 2.5 })],
      {},
      'invalid_request',
      'tools[0].max_results',
    ],
    [
      'max_results "5"',
      [search({ max_results: '5' })],
      {},
      'invalid_request',
      'tools[0].max_results',
    ],
    [
      'max_results null',
      [search({ max_results: null })],
      {},
      'invalid_request',
      'tools[0].max_results',
    ],
    [
      'mcp_servers not an array',
      [],
      { mcp_servers: { name: 'x' } },
      'invalid_request',
      'mcp_servers',
    ],
    [
      'MCP server of another type',
      [],
      { mcp_servers: [server({ type: 'stdio' })] },
      'invalid_request',
      'mcp_servers[0].type',
    ],
    [
      'MCP server without url',
      [],
      { mcp_servers: [{ type: 'url', name: 'x' }] },
      'invalid_request',
      'mcp_servers[0].url',
    ],
    [
      'MCP url not a URL',
      [],
      { mcp_servers: [server({ url: 'mcp.example.com' })] },
      'invalid_request',
      'mcp_servers[0].url',
    ],
    [
      'MCP url ftp',
      [],
      { mcp_servers: [server({ url: 'ftp://mcp.example.com' })] },
      'invalid_request',
      'mcp_servers[0].url',
    ],
    [
      'MCP url too long',
      [],
      { mcp_servers: [server({ url: `https://a.example/${'x'.repeat(2100)}` })] },
      'invalid_request',
      'mcp_servers[0].url',
    ],
    [
      'MCP server name empty',
      [],
      { mcp_servers: [server({ name: '' })] },
      'invalid_request',
      'mcp_servers[0].name',
    ],
    [
      'MCP server name of 65 characters',
      [],
      { mcp_servers: [server({ name: 'n'.repeat(65) })] },
      'invalid_request',
      'mcp_servers[0].name',
    ],
    [
      'MCP server names repeated',
      [],
      { mcp_servers: [server(), server({ url: 'https://b.example' })] },
      'invalid_request',
      'mcp_servers[1].name',
    ],
    [
      'MCP token a number',
      [],
      { mcp_servers: [server({ authorization_token: 42 })] },
      'invalid_request',
      'mcp_servers[0].authorization_token',
    ],
    [
      'MCP defer_loading a string',
      [search()],
      { mcp_servers: [server({ defer_loading: 'yes' })] },
      'invalid_request',
      'mcp_servers[0].defer_loading',
    ],
    [
      'MCP server unknown key',
      [],
      { mcp_servers: [server({ headers: {} })] },
      'unknown_parameter',
      'mcp_servers[0].headers',
    ],
    [
      'MCP tool_configuration unknown key',
      [],
      { mcp_servers: [server({ tool_configuration: { denied_tools: [] } })] },
      'unknown_parameter',
      'mcp_servers[0].tool_configuration.denied_tools',
    ],
    [
      'MCP enabled a string',
      [],
      { mcp_servers: [server({ tool_configuration: { enabled: 'yes' } })] },
      'invalid_request',
      'mcp_servers[0].tool_configuration.enabled',
    ],
    [
      'MCP allowed_tools a string',
      [],
      { mcp_servers: [server({ tool_configuration: { allowed_tools: 'a' } })] },
      'invalid_request',
      'mcp_servers[0].tool_configuration.allowed_tools',
    ],
    [
      'MCP allowed_tools empty name',
      [],
      { mcp_servers: [server({ tool_configuration: { allowed_tools: ['a', ''] } })] },
      'invalid_request',
      'mcp_servers[0].tool_configuration.allowed_tools[1]',
    ],
    [
      '65 MCP servers',
      [],
      { mcp_servers: names(65, 's').map((name) => server({ name })) },
      'invalid_request',
      'mcp_servers',
    ],
  ]
}

describe('tool search request fields: errors on both endpoints', () => {
  for (const [endpoint, validate, make, body] of [
    ['chat', validateChatRequest, fn, chatTools],
    ['messages', validateMessagesRequest, tool, messagesTools],
  ] as const) {
    for (const [what, tools, extra, code, param] of sharedCases(make)) {
      it(`${endpoint}: ${what} -> ${code} at ${param}`, () => {
        const request = tools.length > 0 ? { ...body(...tools), ...extra } : { ...body(), ...extra }
        if (tools.length === 0) delete request.tools
        const message = expectProblem(validate, request, code, param)
        assert.ok(message.length > 20)
      })
    }

    it(`${endpoint}: all tools deferred and tool_choice names one -> all_tools_deferred`, () => {
      const choice =
        endpoint === 'chat'
          ? { tool_choice: { type: 'function', function: { name: 'b' } } }
          : { tool_choice: { type: 'tool', name: 'b' } }
      const request = { ...body(search(), make('a', true), make('b', true)), ...choice }
      const message = expectProblem(
        validate,
        request,
        'all_tools_deferred',
        endpoint === 'chat' ? 'tool_choice.function.name' : 'tool_choice.name',
      )
      assert.match(message, /"b"/)
    })

    it(`${endpoint}: 10,001 tools -> too_many_tools, with the count`, () => {
      const tools = names(10_001).map((name) => make(name))
      const message = expectProblem(validate, body(...tools), 'too_many_tools', 'tools')
      assert.match(message, /10,001/)
      assert.match(message, /10,000/)
    })

    it(`${endpoint}: 10,001 tools beside the search tool -> too_many_tools`, () => {
      const tools = names(10_001).map((name) => make(name, true))
      expectProblem(validate, body(search(), ...tools), 'too_many_tools', 'tools')
    })

    it(`${endpoint}: 100,000 tools fail on their count before their entries are read`, () => {
      // Entries that are not even objects: only the count can have been looked at.
      const tools = new Array(100_000).fill(7)
      const message = expectProblem(validate, body(...tools), 'too_many_tools', 'tools')
      assert.match(message, /100,000/)
    })

    it(`${endpoint}: suggests syntic_tool_search for Anthropic's tool search types`, () => {
      for (const type of [
        'tool_search_tool_regex_20251119',
        'tool_search_tool_bm25',
        'syntic_toolsearch',
      ]) {
        const message = expectProblem(
          validate,
          body({ type }),
          'unknown_tool_type',
          'tools[0].type',
        )
        assert.match(message, /Did you mean "syntic_tool_search"/)
      }
      const far = expectProblem(
        validate,
        body({ type: 'web_fetch' }),
        'unknown_tool_type',
        'tools[0].type',
      )
      assert.match(far, /syntic_tool_search/)
    })

    it(`${endpoint}: says defer_loading does not apply to standard tools`, () => {
      const message = expectProblem(
        validate,
        body(search(), { type: 'syntic_shell', defer_loading: true }),
        'unknown_parameter',
        'tools[1].defer_loading',
      )
      assert.match(message, /standard tools/)
    })

    it(`${endpoint}: never echoes MCP URLs or tokens`, () => {
      const secret = 's3cr3t-TOKEN-value'
      for (const mcp of [
        server({ url: `https://user:${secret}@mcp.example.com` }),
        server({ url: `ftp://mcp.example.com/?key=${secret}` }),
        server({ authorization_token: `${secret}${'x'.repeat(20_000)}` }),
        server({ authorization_token: '' }),
      ]) {
        const check = validate({ ...body(), mcp_servers: [mcp] })
        assert.equal(check.ok, false)
        if (check.ok) continue
        assert.ok(!check.problem.message.includes(secret), check.problem.message)
        assert.ok(!check.problem.message.includes('mcp.example.com'), check.problem.message)
      }
      const credentials = validate({
        ...body(),
        mcp_servers: [server({ url: 'https://a:b@x.example' })],
      })
      assert.ok(!credentials.ok && /authorization_token/.test(credentials.problem.message))
    })
  }
})

describe('tool search request fields: chat only', () => {
  it('counts legacy functions into the 10,000 tools', () => {
    const body = {
      ...chatTools(...names(9_000).map((name) => fn(name))),
      functions: names(1_001, 'f').map((name) => ({ name })),
    }
    const message = expectProblem(validateChatRequest, body, 'too_many_tools', 'tools')
    assert.match(message, /10,001/)
  })

  it('applies all_tools_deferred to a legacy function_call too', () => {
    const body = { ...chatTools(search(), fn('a', true)), function_call: { name: 'a' } }
    expectProblem(validateChatRequest, body, 'all_tools_deferred', 'function_call.name')
  })

  it('refuses defer_loading inside the function definition', () => {
    const body = chatTools(search(), {
      type: 'function',
      function: { name: 'a', defer_loading: true },
    })
    expectProblem(validateChatRequest, body, 'unknown_parameter', 'tools[1].function.defer_loading')
  })
})

describe('tool search request fields: accepted', () => {
  it('chat: the spec example', () => {
    const body = JSON.parse(`{
      "model": "Amara S1.2",
      "stream": false,
      "tools": [
        { "type": "syntic_tool_search", "mode": "semantic" },
        { "type": "function", "function": { "name": "get_order", "description": "Look up an order.", "parameters": { "type": "object", "properties": { "order_number": { "type": "string" } }, "required": ["order_number"] } } },
        { "type": "function", "defer_loading": true, "function": { "name": "create_refund", "description": "Refund part or all of an order.", "parameters": { "type": "object", "properties": { "order_number": { "type": "string" }, "amount_pence": { "type": "integer" } }, "required": ["order_number", "amount_pence"] } } }
      ],
      "messages": [{ "role": "user", "content": "Refund £12.50 on order 582131." }]
    }`)
    expectOk(validateChatRequest, body)
  })

  const CHAT_GOOD: [string, Body][] = [
    [
      'every tool deferred: the search tool counts as loaded',
      chatTools(search(), fn('a', true), fn('b', true)),
    ],
    [
      'custom tools deferred',
      chatTools(search({ max_results: 10 }), {
        type: 'custom',
        defer_loading: true,
        custom: { name: 'sql' },
      }),
    ],
    ['defer_loading false without search', chatTools(fn('a', false))],
    [
      'max_results 1 and keyword mode',
      chatTools(search({ mode: 'keyword', max_results: 1 }), fn('a')),
    ],
    [
      'tool_choice names a deferred tool while another is loaded',
      {
        ...chatTools(search(), fn('a'), fn('b', true)),
        tool_choice: { type: 'function', function: { name: 'b' } },
      },
    ],
    [
      'tool_choice names the search tool',
      {
        ...chatTools(search(), fn('a', true)),
        tool_choice: { type: 'function', function: { name: 'syntic_tool_search' } },
      },
    ],
    [
      'tool_choice required with only the search tool',
      { ...chatTools(search()), tool_choice: 'required' },
    ],
    [
      'a legacy function keeps something loaded',
      {
        ...chatTools(search(), fn('b', true)),
        functions: [{ name: 'old' }],
        tool_choice: { type: 'function', function: { name: 'b' } },
      },
    ],
    [
      'MCP servers without tools',
      chat({
        mcp_servers: [
          server({
            authorization_token: 'tok',
            tool_configuration: { enabled: true, allowed_tools: ['a'] },
          }),
        ],
      }),
    ],
    [
      'a deferred MCP server with the search tool',
      {
        ...chatTools(search()),
        mcp_servers: [
          server({ defer_loading: true }),
          server({ name: 'docs', url: 'http://127.0.0.1:9000/mcp' }),
        ],
      },
    ],
    [
      'records sent back without tool search',
      chatHistory({
        server_tool_calls: [searchCall()],
        tool_search: { loaded: ['create_refund'] },
      }),
    ],
    [
      'records beside tool calls',
      chat({
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: null,
            server_tool_calls: [searchCall({ status: 'error', loaded: [] })],
            tool_calls: [
              {
                id: 'call_r1',
                type: 'function',
                function: { name: 'create_refund', arguments: '{}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_r1', content: 'done' },
        ],
      }),
    ],
  ]
  for (const [what, body] of CHAT_GOOD)
    it(`chat: ${what}`, () => expectOk(validateChatRequest, body))

  const MESSAGES_GOOD: [string, Body][] = [
    [
      'every tool deferred',
      messagesTools(search({ mode: 'semantic' }), tool('a', true), tool('b', true)),
    ],
    [
      'tool_choice names a deferred tool while another is loaded',
      {
        ...messagesTools(search(), tool('a'), tool('b', true)),
        tool_choice: { type: 'tool', name: 'b' },
      },
    ],
    [
      'tool_choice names the search tool',
      {
        ...messagesTools(search(), tool('a', true)),
        tool_choice: { type: 'tool', name: 'syntic_tool_search' },
      },
    ],
    [
      'a deferred MCP server with the search tool',
      { ...messagesTools(search()), mcp_servers: [server({ defer_loading: true })] },
    ],
    [
      'server blocks sent back',
      messagesHistory(serverUse(), searchResult(), { type: 'text', text: 'Refunded.' }),
    ],
    [
      'a search whose result never came',
      messagesHistory(serverUse(), { type: 'text', text: 'Cut.' }),
    ],
    [
      'two searches',
      messagesHistory(
        serverUse('srv_1'),
        searchResult('srv_1'),
        serverUse('srv_2'),
        searchResult('srv_2', { status: 'error', loaded: [] }),
      ),
    ],
    [
      'a final assistant turn of server blocks only',
      messages({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [serverUse(), searchResult()] },
        ],
      }),
    ],
  ]
  for (const [what, body] of MESSAGES_GOOD) {
    it(`messages: ${what}`, () => expectOk(validateMessagesRequest, body))
  }

  it('keeps mcp_servers in the typed request', () => {
    const mcp = [server({ defer_loading: true })]
    const check = validateChatRequest({ ...chatTools(search()), mcp_servers: mcp })
    assert.ok(check.ok)
    assert.deepEqual(check.value.mcp_servers, mcp)
    const messagesCheck = validateMessagesRequest({ ...messagesTools(search()), mcp_servers: mcp })
    assert.ok(messagesCheck.ok)
    assert.deepEqual(messagesCheck.value.mcp_servers, mcp)
  })
})

describe('tool search records: errors', () => {
  const at = 'messages[1]'
  const CHAT_BAD: [string, Body, string, string][] = [
    [
      'server_tool_calls an object',
      { server_tool_calls: searchCall() },
      'invalid_request',
      `${at}.server_tool_calls`,
    ],
    [
      'a call of another type',
      { server_tool_calls: [searchCall({ type: 'web_search' })] },
      'invalid_request',
      `${at}.server_tool_calls[0].type`,
    ],
    [
      'a call with an unknown key',
      { server_tool_calls: [searchCall({ results: [] })] },
      'unknown_parameter',
      `${at}.server_tool_calls[0].results`,
    ],
    [
      'a call without id',
      { server_tool_calls: [searchCall({ id: '' })] },
      'invalid_request',
      `${at}.server_tool_calls[0].id`,
    ],
    [
      'a call with a number query',
      { server_tool_calls: [searchCall({ query: 5 })] },
      'invalid_request',
      `${at}.server_tool_calls[0].query`,
    ],
    [
      'a call with a huge query',
      { server_tool_calls: [searchCall({ query: 'q'.repeat(10_001) })] },
      'invalid_request',
      `${at}.server_tool_calls[0].query`,
    ],
    [
      'a call still running',
      { server_tool_calls: [searchCall({ status: 'running' })] },
      'invalid_request',
      `${at}.server_tool_calls[0].status`,
    ],
    [
      'a loaded name of 65 characters',
      { server_tool_calls: [searchCall({ loaded: ['n'.repeat(65)] })] },
      'invalid_request',
      `${at}.server_tool_calls[0].loaded[0]`,
    ],
    [
      'a loaded name that is a number',
      { tool_search: { loaded: ['a', 3] } },
      'invalid_request',
      `${at}.tool_search.loaded[1]`,
    ],
    [
      '1,001 calls',
      { server_tool_calls: Array.from({ length: 1_001 }, () => searchCall()) },
      'invalid_request',
      `${at}.server_tool_calls`,
    ],
    [
      'a record of 10,001 names',
      { tool_search: { loaded: names(10_001) } },
      'invalid_request',
      `${at}.tool_search.loaded`,
    ],
    ['a record that is a list', { tool_search: ['a'] }, 'invalid_request', `${at}.tool_search`],
    ['a record without loaded', { tool_search: {} }, 'invalid_request', `${at}.tool_search.loaded`],
    [
      'a record with an unknown key',
      { tool_search: { loaded: [], query: 'x' } },
      'unknown_parameter',
      `${at}.tool_search.query`,
    ],
  ]
  for (const [what, assistant, code, param] of CHAT_BAD) {
    it(`chat: ${what} -> ${code} at ${param}`, () => {
      expectProblem(validateChatRequest, chatHistory(assistant), code, param)
    })
  }

  it('chat: records on a user message are unknown fields', () => {
    const body = chat({ messages: [{ role: 'user', content: 'x', tool_search: { loaded: [] } }] })
    expectProblem(validateChatRequest, body, 'unknown_parameter', 'messages[0].tool_search')
  })

  const block = `${at}.content`
  const MESSAGES_BAD: [string, unknown[], string, string][] = [
    [
      'server_tool_use of another tool',
      [serverUse('srv_1', { name: 'web_search' })],
      'invalid_request',
      `${block}[0].name`,
    ],
    [
      'server_tool_use without query',
      [serverUse('srv_1', { input: {} })],
      'invalid_request',
      `${block}[0].input.query`,
    ],
    [
      'server_tool_use with more input',
      [serverUse('srv_1', { input: { query: 'x', limit: 3 } })],
      'unknown_parameter',
      `${block}[0].input.limit`,
    ],
    [
      'server_tool_use with an unknown key',
      [serverUse('srv_1', { cache: true })],
      'unknown_parameter',
      `${block}[0].cache`,
    ],
    [
      'server_tool_use with an id of 257 characters',
      [serverUse('s'.repeat(257))],
      'invalid_request',
      `${block}[0].id`,
    ],
    [
      'a result before its use',
      [searchResult('srv_1'), serverUse('srv_1')],
      'invalid_request',
      `${block}[0].tool_use_id`,
    ],
    [
      'a result answering nothing',
      [serverUse('srv_1'), searchResult('srv_2')],
      'invalid_request',
      `${block}[1].tool_use_id`,
    ],
    [
      'a result of 10,001 names',
      [serverUse(), searchResult('srv_05', { loaded: names(10_001) })],
      'invalid_request',
      `${block}[1].loaded`,
    ],
    [
      'a result with a bad status',
      [serverUse(), searchResult('srv_05', { status: 'partial' })],
      'invalid_request',
      `${block}[1].status`,
    ],
    [
      'a result with an unknown key',
      [serverUse(), searchResult('srv_05', { query: 'x' })],
      'unknown_parameter',
      `${block}[1].query`,
    ],
  ]
  for (const [what, blocks, code, param] of MESSAGES_BAD) {
    it(`messages: ${what} -> ${code} at ${param}`, () => {
      expectProblem(validateMessagesRequest, messagesHistory(...blocks), code, param)
    })
  }

  it('messages: server blocks in a user turn are refused', () => {
    const body = messages({ messages: [{ role: 'user', content: [serverUse()] }] })
    expectProblem(validateMessagesRequest, body, 'invalid_request', 'messages[0].content[0].type')
  })
})

describe('tool search: hostile sizes', () => {
  it('chat: accepts 10,000 deferred tools, the search tool and a 10,000-name record', () => {
    const tools = names(10_000).map((name) => fn(name, true))
    const body = chatHistory({ tool_search: { loaded: names(10_000) } }, [search(), ...tools])
    expectOk(validateChatRequest, body)
  })

  it('messages: accepts 10,000 deferred tools and a 10,000-name result', () => {
    const tools = names(10_000).map((name) => tool(name, true))
    const body = {
      ...messagesHistory(serverUse(), searchResult('srv_05', { loaded: names(10_000) })),
      tools: [search(), ...tools],
    }
    expectOk(validateMessagesRequest, body)
  })

  it('chat: rejects a duplicate name among 10,000 deferred tools at its place', () => {
    const tools = names(10_000).map((name) => fn(name, true))
    tools[9_999] = fn('tool_17', true)
    expectProblem(
      validateChatRequest,
      chatTools(search(), ...tools),
      'invalid_request',
      'tools[10000].function.name',
    )
  })
})
