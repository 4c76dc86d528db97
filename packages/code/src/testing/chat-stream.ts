// Builders for scripted OpenAI chat completion streams, for tests that drive the agent through
// `ScriptedUpstream` (the one allowed test double: the model).
export interface StreamEvent {
  data: string
}

export interface ScriptedToolCall {
  name: string
  /** An object is sent as JSON; a string is sent as is (for broken arguments). */
  args: Record<string, unknown> | string
  id?: string
}

let serial = 0

function chunk(delta: Record<string, unknown>, finish: string | null = null): StreamEvent {
  serial += 1
  return {
    data: JSON.stringify({
      id: `chatcmpl-${serial}`,
      object: 'chat.completion.chunk',
      created: 0,
      model: 'scripted',
      choices: [{ index: 0, delta, finish_reason: finish }],
    }),
  }
}

/** The text in `pieces` deltas, then `stop`. */
export function textEvents(text: string, pieces = 3): StreamEvent[] {
  const size = Math.max(1, Math.ceil(text.length / pieces))
  const events = [chunk({ role: 'assistant', content: '' })]
  for (let i = 0; i < text.length; i += size)
    events.push(chunk({ content: text.slice(i, i + size) }))
  events.push(chunk({}, 'stop'))
  return events
}

/** Optional text, then the calls with their arguments split in two fragments, then `tool_calls`. */
export function toolCallEvents(calls: ScriptedToolCall[], text = ''): StreamEvent[] {
  const events = [chunk({ role: 'assistant', content: text })]
  calls.forEach((call, index) => {
    const args = typeof call.args === 'string' ? call.args : JSON.stringify(call.args)
    const half = Math.floor(args.length / 2)
    events.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${index}_${serial}`,
            type: 'function',
            function: { name: call.name, arguments: args.slice(0, half) },
          },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }),
    )
  })
  events.push(chunk({}, 'tool_calls'))
  return events
}

export const editor = (args: Record<string, unknown>, id?: string): ScriptedToolCall => ({
  name: 'syntic_text_editor',
  args,
  id,
})

export const shell = (cmd: string, id?: string): ScriptedToolCall => ({
  name: 'syntic_shell',
  args: { command: 'run', cmd },
  id,
})
