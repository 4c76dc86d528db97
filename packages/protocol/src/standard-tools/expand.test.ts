import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChatCompletionRequest, ChatFunctionTool } from '../chat/types.js'
import { validateChatRequest } from '../chat/validate.js'
import type { MessagesCustomTool, MessagesRequest } from '../messages/types.js'
import { validateMessagesRequest } from '../messages/validate.js'
import { SYNTIC_VERSIONS } from '../versions.js'
import { standardToolDefinition } from './definitions.js'
import { expandChatTools, expandMessagesTools } from './expand.js'

const VERSION = SYNTIC_VERSIONS[0]

function chatRequest(tools: unknown[]): ChatCompletionRequest {
  const check = validateChatRequest({
    model: 'Syntic Code',
    messages: [{ role: 'user', content: 'Fix the tests.' }],
    tools,
  })
  assert.ok(check.ok, check.ok ? '' : check.problem.message)
  return check.value
}

function messagesRequest(tools: unknown[]): MessagesRequest {
  const check = validateMessagesRequest({
    model: 'Syntic Code',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'Fix the tests.' }],
    tools,
  })
  assert.ok(check.ok, check.ok ? '' : check.problem.message)
  return check.value
}

const weather = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
}
const lookup = { name: 'lookup', input_schema: { type: 'object', properties: {} } }

describe('expandChatTools', () => {
  it('replaces standard entries by function tools, in order, with options applied', () => {
    const request = chatRequest([
      { type: 'syntic_text_editor', root: '/workspace' },
      weather,
      { type: 'syntic_shell', max_output_chars: 20000 },
      { type: 'syntic_memory' },
    ])
    const expanded = expandChatTools(request, VERSION)
    const tools = expanded.tools as ChatFunctionTool[]
    assert.deepEqual(
      tools.map((t) => t.function.name),
      ['syntic_text_editor', 'get_weather', 'syntic_shell', 'syntic_memory'],
    )
    assert.ok(tools.every((t) => t.type === 'function'))
    assert.equal(tools[1], request.tools![1], 'function tools are kept as they are')
    const editor = standardToolDefinition('syntic_text_editor', { root: '/workspace' }, VERSION)
    assert.deepEqual(tools[0], {
      type: 'function',
      function: {
        name: 'syntic_text_editor',
        description: editor.description,
        parameters: editor.input_schema,
      },
    })
    assert.ok(tools[0]!.function.description!.includes('/workspace'))
    assert.ok(tools[2]!.function.description!.includes('20,000'))
    assert.deepEqual(Object.keys(expanded), Object.keys(request))
  })

  it('renders the definitions of the version asked for', () => {
    for (const version of SYNTIC_VERSIONS) {
      const expanded = expandChatTools(
        chatRequest([{ type: 'syntic_memory', root: '/notes' }]),
        version,
      )
      const tool = expanded.tools![0] as ChatFunctionTool
      const definition = standardToolDefinition('syntic_memory', { root: '/notes' }, version)
      assert.equal(tool.function.description, definition.description)
      assert.deepEqual(tool.function.parameters, definition.input_schema)
    }
  })

  it('returns a request without standard tools as is', () => {
    const request = chatRequest([weather])
    assert.equal(expandChatTools(request, VERSION), request)
    const bare = validateChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
    assert.ok(bare.ok)
    assert.equal(expandChatTools(bare.value, VERSION), bare.value)
  })

  it('leaves the validated request untouched', () => {
    const request = chatRequest([{ type: 'syntic_shell' }])
    const before = JSON.stringify(request)
    expandChatTools(request, VERSION)
    assert.equal(JSON.stringify(request), before)
  })

  it('makes tool_choice naming a standard tool point at a real function', () => {
    const check = validateChatRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'syntic_shell' }],
      tool_choice: { type: 'function', function: { name: 'syntic_shell' } },
    })
    assert.ok(check.ok)
    const tools = expandChatTools(check.value, VERSION).tools as ChatFunctionTool[]
    assert.equal(tools[0]!.function.name, 'syntic_shell')
  })
})

describe('expandMessagesTools', () => {
  it('replaces standard entries by { name, description, input_schema }, in order', () => {
    const request = messagesRequest([
      lookup,
      { type: 'syntic_shell', max_output_chars: 5000 },
      { type: 'syntic_text_editor', root: '/srv' },
    ])
    const expanded = expandMessagesTools(request, VERSION)
    const tools = expanded.tools as MessagesCustomTool[]
    assert.deepEqual(
      tools.map((t) => t.name),
      ['lookup', 'syntic_shell', 'syntic_text_editor'],
    )
    assert.equal(tools[0], request.tools![0])
    const shell = standardToolDefinition('syntic_shell', { max_output_chars: 5000 }, VERSION)
    assert.deepEqual(tools[1], {
      name: 'syntic_shell',
      description: shell.description,
      input_schema: shell.input_schema,
    })
    assert.ok(!('type' in tools[1]!))
    assert.ok(tools[2]!.description!.includes('/srv'))
  })

  it('renders the definitions of the version asked for', () => {
    for (const version of SYNTIC_VERSIONS) {
      const expanded = expandMessagesTools(messagesRequest([{ type: 'syntic_memory' }]), version)
      const definition = standardToolDefinition('syntic_memory', {}, version)
      assert.deepEqual(expanded.tools![0], definition)
    }
  })

  it('returns a request without standard tools as is', () => {
    const request = messagesRequest([lookup])
    assert.equal(expandMessagesTools(request, VERSION), request)
  })
})
