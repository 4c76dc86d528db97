import type { RecordedRequest, ScriptedReply, ScriptStep } from '../testing/scripted-upstream.js'

/** What the scripted model decides to do on one turn. */
export type ModelAction =
  | { text: string }
  | { calls: { name: string; arguments: string }[]; text?: string }

/** One upstream request as the model would read it, whatever the upstream's format. */
export interface UpstreamView {
  format: 'openai' | 'anthropic'
  stream: boolean
  tools: { name: string; description: string }[]
  toolNames: string[]
  /** The tool results the request ends with, as text. */
  toolResults: string[]
  body: Record<string, unknown>
}

type Json = Record<string, unknown>

export function viewOf(request: RecordedRequest): UpstreamView {
  const body = request.body as Json
  const format = request.path.startsWith('/v1/messages') ? 'anthropic' : 'openai'
  const rawTools = (Array.isArray(body.tools) ? body.tools : []) as Json[]
  const tools = rawTools.map((tool) => {
    const fn = (format === 'openai' ? tool.function : tool) as Json
    return { name: String(fn.name), description: String(fn.description ?? '') }
  })
  const messages = (body.messages ?? []) as Json[]
  const toolResults: string[] = []
  if (format === 'openai') {
    for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) {
      toolResults.unshift(textOf(messages[i]!.content))
    }
  } else {
    const last = messages[messages.length - 1]
    if (last?.role === 'user' && Array.isArray(last.content)) {
      for (const block of last.content as Json[]) {
        if (block.type === 'tool_result') toolResults.push(textOf(block.content))
      }
    }
  }
  return {
    format,
    stream: body.stream === true,
    tools,
    toolNames: tools.map((t) => t.name),
    toolResults,
    body,
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return (content as Json[]).map((part) => String(part.text ?? '')).join('')
}

/**
 * A scripted model: `decide` reads each upstream request (and its turn number) and the answer
 * goes back in the upstream's format, streamed when the request asked for a stream.
 */
export function scriptedModel(
  decide: (view: UpstreamView, turn: number) => ModelAction,
  views: UpstreamView[] = [],
): ScriptStep {
  return (request) => {
    const view = viewOf(request)
    views.push(view)
    const action = decide(view, views.length - 1)
    return replyFor(view, action, views.length)
  }
}

export const TURN_USAGE = { prompt_tokens: 100, completion_tokens: 7 }

export function replyFor(view: UpstreamView, action: ModelAction, turn: number): ScriptedReply {
  const text = 'text' in action ? (action.text ?? '') : ''
  const calls = 'calls' in action ? action.calls : []
  if (view.format === 'openai') {
    return view.stream ? openaiStream(text, calls, turn) : { json: openaiJson(text, calls, turn) }
  }
  return view.stream
    ? anthropicStream(text, calls, turn)
    : { json: anthropicJson(text, calls, turn) }
}

type Call = { name: string; arguments: string }

function openaiJson(text: string, calls: Call[], turn: number): Json {
  const message: Json = { role: 'assistant', content: text === '' ? null : text }
  if (calls.length > 0) {
    message.tool_calls = calls.map((call, i) => ({
      id: `call_t${turn}_${i}`,
      type: 'function',
      function: call,
    }))
  }
  return {
    id: `chatcmpl-up${turn}`,
    object: 'chat.completion',
    created: 1,
    model: 'up-model',
    choices: [
      {
        index: 0,
        message,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: { ...TURN_USAGE, total_tokens: TURN_USAGE.prompt_tokens + TURN_USAGE.completion_tokens },
  }
}

function openaiStream(text: string, calls: Call[], turn: number): ScriptedReply {
  const chunk = (delta: Json, finish: string | null = null) => ({
    data: JSON.stringify({
      id: `chatcmpl-up${turn}`,
      object: 'chat.completion.chunk',
      created: 1,
      model: 'up-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    }),
  })
  const events = [chunk({ role: 'assistant', content: '' })]
  if (text !== '') {
    const half = Math.ceil(text.length / 2)
    events.push(chunk({ content: text.slice(0, half) }), chunk({ content: text.slice(half) }))
  }
  calls.forEach((call, index) => {
    const half = Math.ceil(call.arguments.length / 2)
    events.push(
      chunk({
        tool_calls: [
          {
            index,
            id: `call_t${turn}_${index}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(0, half) } }] }),
      chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] }),
    )
  })
  events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'))
  events.push({
    data: JSON.stringify({
      id: `chatcmpl-up${turn}`,
      object: 'chat.completion.chunk',
      created: 1,
      model: 'up-model',
      choices: [],
      usage: {
        ...TURN_USAGE,
        total_tokens: TURN_USAGE.prompt_tokens + TURN_USAGE.completion_tokens,
      },
    }),
  })
  return { sse: events }
}

function inputOf(args: string): unknown {
  try {
    return JSON.parse(args)
  } catch {
    return {}
  }
}

function anthropicJson(text: string, calls: Call[], turn: number): Json {
  const content: Json[] = []
  if (text !== '') content.push({ type: 'text', text })
  calls.forEach((call, i) => {
    content.push({
      type: 'tool_use',
      id: `toolu_t${turn}_${i}`,
      name: call.name,
      input: inputOf(call.arguments),
    })
  })
  return {
    id: `msg_up${turn}`,
    type: 'message',
    role: 'assistant',
    model: 'up-model',
    content,
    stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: TURN_USAGE.prompt_tokens, output_tokens: TURN_USAGE.completion_tokens },
  }
}

function anthropicStream(text: string, calls: Call[], turn: number): ScriptedReply {
  const event = (type: string, data: Json) => ({
    event: type,
    data: JSON.stringify({ type, ...data }),
  })
  const events = [
    event('message_start', {
      message: {
        id: `msg_up${turn}`,
        type: 'message',
        role: 'assistant',
        model: 'up-model',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: TURN_USAGE.prompt_tokens, output_tokens: 1 },
      },
    }),
  ]
  let index = 0
  if (text !== '') {
    events.push(
      event('content_block_start', { index, content_block: { type: 'text', text: '' } }),
      event('content_block_delta', { index, delta: { type: 'text_delta', text } }),
      event('content_block_stop', { index }),
    )
    index += 1
  }
  calls.forEach((call, i) => {
    const json = JSON.stringify(inputOf(call.arguments))
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: `toolu_t${turn}_${i}`, name: call.name, input: {} },
      }),
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: json },
      }),
      event('content_block_stop', { index }),
    )
    index += 1
  })
  events.push(
    event('message_delta', {
      delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: TURN_USAGE.completion_tokens },
    }),
    event('message_stop', {}),
  )
  return { sse: events }
}
