// A streamed chat turn with a tool search, as the server's loop sends it: text, the search
// running, its result, then a call to a loaded tool and the record.
import type { ChatCompletionChunk } from '../chat/types.js'
import { chatChunk, usageChunk } from './test-support.js'

const search = {
  index: 0,
  id: 'srv_05',
  type: 'syntic_tool_search',
  query: 'refund an order',
} as const

export const TOOL_SEARCH_CHAT_STREAM: ChatCompletionChunk[] = [
  chatChunk({ role: 'assistant', content: '' }),
  chatChunk({ content: 'Let me look.' }),
  chatChunk({ server_tool_calls: [{ ...search, status: 'running' }] }),
  chatChunk({
    server_tool_calls: [{ ...search, status: 'ok', loaded: ['create_refund', 'get_order'] }],
  }),
  chatChunk({
    tool_calls: [
      {
        index: 0,
        id: 'call_r1',
        type: 'function',
        function: { name: 'create_refund', arguments: '' },
      },
    ],
  }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"order_number":"582131",' } }] }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: '"amount_pence":1250}' } }] }),
  chatChunk({ tool_search: { loaded: ['create_refund', 'get_order'] } }, 'tool_calls'),
  usageChunk({ prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 }),
]
