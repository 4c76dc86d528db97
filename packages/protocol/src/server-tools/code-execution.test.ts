import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChatCompletion } from '../chat/types.js'
import { validateChatRequest } from '../chat/validate.js'
import { validateMessagesRequest } from '../messages/validate.js'
import { ChatToMessagesStream } from '../translate/chat-to-messages-stream.js'
import { chatResponseToMessages, messagesResponseToChat } from '../translate/responses.js'
import { CODE_EXECUTION_TYPE } from './code-execution.js'
import { stripMessagesServerRecords, stripServerRecords } from './records.js'

const run = {
  id: 'srv_1',
  type: CODE_EXECUTION_TYPE,
  status: 'ok',
  exit_code: 0,
  duration_ms: 12,
  language: 'python',
  code: 'print(1)',
  stdout: '1\n',
  stderr: '',
} as const

describe('code execution on the wire', () => {
  it('accepts the tool entry and include on both endpoints, rejecting bad values', () => {
    const chat = (tool: object, extra: object = {}) =>
      validateChatRequest({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        tools: [tool],
        ...extra,
      })
    assert.ok(
      chat(
        { type: CODE_EXECUTION_TYPE, container: { id: 'cntr_1' }, files: ['file_1'], max_runs: 50 },
        { include: ['code_execution.code'] },
      ).ok,
    )
    for (const bad of [{ max_runs: 0 }, { container: 'new' }, { files: [''] }, { extra: 1 }]) {
      assert.equal(chat({ type: CODE_EXECUTION_TYPE, ...bad }).ok, false)
    }
    assert.equal(chat({ type: CODE_EXECUTION_TYPE }, { include: ['everything'] }).ok, false)
    const messages = validateMessagesRequest({
      model: 'm',
      max_tokens: 5,
      include: ['code_execution.code'],
      tools: [{ type: CODE_EXECUTION_TYPE, max_runs: 1 }],
      messages: [{ role: 'user', content: 'x' }],
    })
    assert.ok(messages.ok)
  })

  it('accepts records sent back and strips them, with include, before the upstream', () => {
    const checked = validateChatRequest({
      model: 'm',
      include: ['code_execution.code'],
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: 'done',
          server_tool_calls: [run],
          files: [{ id: 'file_1', filename: 'a.png', bytes: 3, source: 'code_execution' }],
        },
        { role: 'user', content: 'y' },
      ],
    })
    assert.ok(checked.ok)
    const stripped = stripServerRecords(checked.value)
    assert.equal(stripped.include, undefined)
    assert.deepEqual(stripped.messages[1], { role: 'assistant', content: 'done' })
    const bad = validateChatRequest({
      model: 'm',
      messages: [
        { role: 'assistant', content: 'x', server_tool_calls: [{ ...run, status: 'maybe' }] },
      ],
    })
    assert.equal(bad.ok, false)
  })

  it('translates responses both ways: blocks, files, container, seconds', () => {
    const completion: ChatCompletion = {
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          logprobs: null,
          message: {
            role: 'assistant',
            content: 'ok',
            refusal: null,
            server_tool_calls: [run],
            files: [{ id: 'file_1', filename: 'a.png', bytes: 3, source: 'code_execution' }],
          },
        },
      ],
      usage: {
        prompt_tokens: 1,
        completion_tokens: 1,
        total_tokens: 2,
        server_tool_use: { code_execution_seconds: 5 },
      },
      container: { id: 'cntr_1', expires_at: 99 },
    }
    const messages = chatResponseToMessages(completion, 'm')
    assert.deepEqual(
      messages.content.map((b) => b.type),
      ['server_tool_use', 'syntic_code_execution_result', 'text'],
    )
    assert.deepEqual(messages.container, { id: 'cntr_1', expires_at: 99 })
    assert.equal(messages.files?.length, 1)
    assert.deepEqual(messages.usage.server_tool_use, { code_execution_seconds: 5 })
    const back = messagesResponseToChat(messages, 'm')
    assert.deepEqual(back.choices[0]!.message.server_tool_calls, [run])
    assert.equal(back.choices[0]!.message.tool_search, undefined)
    assert.deepEqual(back.container, completion.container)
    const request = validateMessagesRequest({
      model: 'm',
      max_tokens: 5,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: messages.content },
        { role: 'user', content: 'y' },
      ],
    })
    assert.ok(request.ok)
    assert.ok(
      !JSON.stringify(stripMessagesServerRecords(request.value)).includes(
        'syntic_code_execution_result',
      ),
    )
  })

  it('streams a run as two whole blocks and ends with container and files in message_delta', () => {
    const stream = new ChatToMessagesStream('m')
    const base = { id: 'c', object: 'chat.completion.chunk' as const, created: 1, model: 'm' }
    const events = [
      ...stream.push({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              server_tool_calls: [
                { index: 0, id: 'srv_1', type: CODE_EXECUTION_TYPE, status: 'running' },
              ],
            },
            finish_reason: null,
          },
        ],
      }),
      ...stream.push({
        ...base,
        choices: [
          { index: 0, delta: { server_tool_calls: [{ index: 0, ...run }] }, finish_reason: null },
        ],
      }),
      ...stream.push({
        ...base,
        container: { id: 'cntr_1', expires_at: 9 },
        choices: [{ index: 0, delta: { files: [] }, finish_reason: 'stop' }],
      }),
      ...stream.finish(),
    ]
    const starts = events.filter((e) => e.type === 'content_block_start')
    assert.deepEqual(
      starts.map((e) => (e as { content_block: { type: string } }).content_block.type),
      ['server_tool_use', 'syntic_code_execution_result'],
    )
    const delta = events.find((e) => e.type === 'message_delta') as {
      delta: Record<string, unknown>
    }
    assert.deepEqual(delta.delta.container, { id: 'cntr_1', expires_at: 9 })
    assert.deepEqual(delta.delta.files, [])
  })
})
