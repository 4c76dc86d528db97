// Tool search records in each format: chat carries `server_tool_calls` (and a `tool_search`
// record) on the assistant message, messages carries a `server_tool_use` block and a
// `syntic_tool_search_result` block per search. Read defensively, as responses arrive unchecked.
import { isRecord } from '../chat/request-check.js'
import {
  type MessagesServerBlock,
  type ServerToolCall,
  TOOL_SEARCH_TYPE,
  type ToolSearchRecord,
} from '../server-tools/types.js'
import { stringOr } from './content.js'
import { newId } from './ids.js'

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((name) => typeof name === 'string') : []
}

function status(value: unknown): 'ok' | 'error' {
  return value === 'ok' ? 'ok' : 'error'
}

/** Chat `server_tool_calls` as messages blocks: each search a server_tool_use, then its result. */
export function serverCallsToBlocks(calls: unknown): MessagesServerBlock[] {
  if (!Array.isArray(calls)) return []
  const blocks: MessagesServerBlock[] = []
  for (const call of calls) {
    if (!isRecord(call) || call.type !== TOOL_SEARCH_TYPE) continue
    const id = typeof call.id === 'string' && call.id ? call.id : newId('srv_')
    blocks.push(
      {
        type: 'server_tool_use',
        id,
        name: TOOL_SEARCH_TYPE,
        input: { query: stringOr(call.query) },
      },
      {
        type: 'syntic_tool_search_result',
        tool_use_id: id,
        loaded: names(call.loaded),
        status: status(call.status),
      },
    )
  }
  return blocks
}

/** The chat fields a messages turn's server blocks become. */
export interface ChatServerRecords {
  server_tool_calls?: ServerToolCall[]
  tool_search?: ToolSearchRecord
}

/**
 * Messages server blocks as chat `server_tool_calls`, in order, and the `tool_search` record:
 * the names the successful searches of this turn loaded, each once. A search whose result block
 * is missing (a cut stream) reads as failed, with nothing loaded; a result without its
 * server_tool_use still counts, with an empty query.
 */
export function serverBlocksToChat(blocks: readonly unknown[]): ChatServerRecords {
  const calls = new Map<string, ServerToolCall>()
  const loaded = new Set<string>()
  for (const block of blocks) {
    if (!isRecord(block)) continue
    if (block.type === 'server_tool_use' && block.name === TOOL_SEARCH_TYPE) {
      const id = typeof block.id === 'string' && block.id ? block.id : newId('srv_')
      const input = isRecord(block.input) ? block.input : {}
      const query = stringOr(input.query)
      calls.set(id, { id, type: TOOL_SEARCH_TYPE, query, loaded: [], status: 'error' })
    } else if (block.type === 'syntic_tool_search_result') {
      const id = typeof block.tool_use_id === 'string' && block.tool_use_id ? block.tool_use_id : ''
      const call = calls.get(id) ?? { id: id || newId('srv_'), type: TOOL_SEARCH_TYPE, query: '' }
      const result: ServerToolCall = {
        ...call,
        loaded: names(block.loaded),
        status: status(block.status),
      }
      calls.set(result.id, result)
      if (result.status === 'ok') for (const name of result.loaded) loaded.add(name)
    }
  }
  if (calls.size === 0) return {}
  return { server_tool_calls: [...calls.values()], tool_search: { loaded: [...loaded] } }
}
