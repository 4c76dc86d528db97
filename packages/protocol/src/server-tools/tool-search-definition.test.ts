import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encode as o200k } from 'gpt-tokenizer'
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { validateChatRequest } from '../chat/validate.js'
import { toolSearchFunction, toolSearchResultText } from './tool-search-definition.js'

/** The search tool costs the model a small fraction of a standard tool's 300 tokens. */
const TOKEN_BUDGET = 120

describe('toolSearchFunction', () => {
  it('is a function named syntic_tool_search taking a required query', () => {
    const tool = toolSearchFunction(4812)
    assert.equal(tool.type, 'function')
    assert.equal(tool.function.name, 'syntic_tool_search')
    const parameters = tool.function.parameters as {
      properties: Record<string, { type: string }>
      required: string[]
    }
    assert.deepEqual(Object.keys(parameters.properties), ['query'])
    assert.equal(parameters.properties.query?.type, 'string')
    assert.deepEqual(parameters.required, ['query'])
  })

  it('carries the one-line hint with the count', () => {
    const description = toolSearchFunction(4812).function.description ?? ''
    assert.match(description, /4,812 more tools are available but not loaded/)
    assert.ok(!description.includes('\n'))
    assert.match(toolSearchFunction(1).function.description ?? '', /1 more tool is available/)
    assert.doesNotMatch(toolSearchFunction(0).function.description ?? '', /more tool/)
  })

  it(`fits in ${TOKEN_BUDGET} tokens`, () => {
    const text = JSON.stringify(toolSearchFunction(10_000).function)
    const counts = { o200k: o200k(text).length, cl100k: cl100k(text).length }
    assert.ok(counts.o200k <= TOKEN_BUDGET, `o200k: ${counts.o200k}`)
    assert.ok(counts.cl100k <= TOKEN_BUDGET, `cl100k: ${counts.cl100k}`)
  })

  it('is a tool an upstream request may carry (valid as a chat tool without the prefix check)', () => {
    // The reserved prefix keeps callers from defining it; the definition itself is well formed.
    const tool = toolSearchFunction(3)
    const renamed = { ...tool, function: { ...tool.function, name: 'tool_search' } }
    const check = validateChatRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [renamed],
    })
    assert.ok(check.ok, check.ok ? '' : check.problem.message)
  })
})

describe('toolSearchResultText', () => {
  it('lists the loaded tools with the first line of their descriptions', () => {
    const text = toolSearchResultText([
      { name: 'create_refund', description: 'Refund part or all of an order.\nAmounts in pence.' },
      { name: 'get_order' },
    ])
    assert.equal(
      text,
      'Loaded 2 tools; you can call them now:\n- create_refund: Refund part or all of an order.\n- get_order',
    )
  })

  it('cuts long descriptions', () => {
    const text = toolSearchResultText([{ name: 'a', description: 'x'.repeat(10_000) }])
    assert.ok(text.length < 250, `${text.length}`)
    assert.match(text, /\.\.\.$/)
  })

  it('tells the model to try other words when nothing matched', () => {
    const text = toolSearchResultText([])
    assert.match(text, /No tools matched/)
    assert.match(text, /other words/)
  })

  it('adds the note on its own line', () => {
    const note = 'Unloaded to stay within 128 loaded tools: old_tool.'
    assert.equal(
      toolSearchResultText([{ name: 'a' }], note)
        .split('\n')
        .at(-1),
      note,
    )
    assert.equal(toolSearchResultText([], note).split('\n').at(-1), note)
    assert.equal(toolSearchResultText([{ name: 'a' }], '').split('\n').length, 2)
  })
})
