// Recorded-style streams for the translation tests, shaped like what OpenAI and Anthropic send
// (ids, fragment boundaries, the final usage chunk, ping events), and the SSE framing of each.
import type { ChatCompletionChunk, ChatDelta, ChatFinishReason, ChatUsage } from '../chat/types.js'
import type { MessagesStreamEvent } from '../messages/types.js'

export function chatChunk(
  delta: ChatDelta,
  finish_reason: ChatFinishReason | null = null,
  id = 'chatcmpl-rec1',
): ChatCompletionChunk {
  return {
    id,
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-upstream',
    system_fingerprint: 'fp_1',
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
  }
}

export function usageChunk(usage: ChatUsage, id = 'chatcmpl-rec1'): ChatCompletionChunk {
  return {
    id,
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-upstream',
    choices: [],
    usage,
  }
}

/** Text, then two tool calls whose arguments arrive in fragments, then usage (include_usage). */
export const CHAT_TEXT_THEN_TOOLS: ChatCompletionChunk[] = [
  chatChunk({ role: 'assistant', content: '', refusal: null }),
  chatChunk({ content: 'Let me check ' }),
  chatChunk({ content: 'both cities.' }),
  chatChunk({
    tool_calls: [
      {
        index: 0,
        id: 'call_Paris1',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
    ],
  }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: 'ty": "Par' } }] }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }),
  chatChunk({
    tool_calls: [
      {
        index: 1,
        id: 'call_Rome22',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
    ],
  }),
  chatChunk({
    tool_calls: [{ index: 1, function: { arguments: '{"city": "Rome", "units": ["c"' } }],
  }),
  chatChunk({ tool_calls: [{ index: 1, function: { arguments: ']}' } }] }),
  chatChunk({}, 'tool_calls'),
  usageChunk({
    prompt_tokens: 120,
    completion_tokens: 45,
    total_tokens: 165,
    prompt_tokens_details: { cached_tokens: 100 },
  }),
]

/** A plain answer whose stream stops before any finish reason (a dropped upstream). */
export const CHAT_CUT_SHORT: ChatCompletionChunk[] = [
  chatChunk({ role: 'assistant', content: '' }),
  chatChunk({ content: 'Partial answ' }),
  chatChunk({}),
  chatChunk({ content: '' }),
  chatChunk({ content: 'er' }),
]

const messageStart: MessagesStreamEvent = {
  type: 'message_start',
  message: {
    id: 'msg_01Rec',
    type: 'message',
    role: 'assistant',
    model: 'claude-upstream',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 30, output_tokens: 1, cache_read_input_tokens: 200 },
  },
}

/** Text, then two tool_use blocks whose input arrives as JSON fragments, with pings between. */
export const MESSAGES_TEXT_THEN_TOOLS: MessagesStreamEvent[] = [
  messageStart,
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me check ' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'both cities.' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_01Paris', name: 'get_weather', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
  {
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: '{"city": "P' },
  },
  {
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json: 'aris"}' },
  },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'content_block_start',
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_01Rome', name: 'get_weather', input: {} },
  },
  {
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'input_json_delta', partial_json: '{"city": "Rome",' },
  },
  {
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'input_json_delta', partial_json: ' "units": ["c"]}' },
  },
  { type: 'content_block_stop', index: 2 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 58 },
  },
  { type: 'message_stop' },
]

/** Thinking, then text, cut off by max_tokens. */
export const MESSAGES_THINKING_THEN_TEXT: MessagesStreamEvent[] = [
  messageStart,
  {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'thinking', thinking: '', signature: '' },
  },
  {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'thinking_delta', thinking: 'Consider.' },
  },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'text', text: 'Hello' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: ', world' } },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'max_tokens', stop_sequence: null },
    usage: { output_tokens: 16 },
  },
  { type: 'message_stop' },
]

/** One chat chunk as an SSE event, as OpenAI frames it. */
export function chatSse(chunk: ChatCompletionChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`
}

export const CHAT_SSE_DONE = 'data: [DONE]\n\n'

/** One messages event as an SSE event, named by its type, as Anthropic frames it. */
export function messagesSse(event: MessagesStreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
}
