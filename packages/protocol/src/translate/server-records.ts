// Server tool records in each format: chat carries `server_tool_calls` (and a `tool_search`
// record) on the assistant message, messages carries a `server_tool_use` block and a result block
// (`syntic_tool_search_result`, `syntic_code_execution_result`) per call. Read defensively, as
// responses arrive unchecked.
import { isRecord } from '../chat/request-check.js'
import {
  CODE_EXECUTION_STATUSES,
  CODE_EXECUTION_TYPE,
  type CodeExecutionCall,
  type CodeExecutionStatus,
  type MessagesCodeExecutionResultBlock,
} from '../server-tools/code-execution.js'
import {
  type MessagesServerBlock,
  type ServerToolCall,
  TOOL_SEARCH_TYPE,
  type ToolSearchCall,
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

function runStatus(value: unknown): CodeExecutionStatus {
  return CODE_EXECUTION_STATUSES.find((s) => s === value) ?? 'error'
}

function exitCode(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) ? value : null
}

function milliseconds(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0
}

function callId(value: unknown): string {
  return typeof value === 'string' && value ? value : newId('srv_')
}

/** The detail `include: ["code_execution.code"]` adds, from a record read defensively. */
function runDetail(source: Record<string, unknown>): Partial<CodeExecutionCall> {
  const detail: Partial<CodeExecutionCall> = {}
  if (source.language === 'python' || source.language === 'bash') detail.language = source.language
  if (typeof source.code === 'string') detail.code = source.code
  if (typeof source.stdout === 'string') detail.stdout = source.stdout
  if (typeof source.stderr === 'string') detail.stderr = source.stderr
  return detail
}

function runBlocks(call: Record<string, unknown>): MessagesServerBlock[] {
  const id = callId(call.id)
  const { language, code, stdout, stderr } = runDetail(call)
  const result: MessagesCodeExecutionResultBlock = {
    type: 'syntic_code_execution_result',
    tool_use_id: id,
    status: runStatus(call.status),
    exit_code: exitCode(call.exit_code),
    duration_ms: milliseconds(call.duration_ms),
  }
  if (stdout !== undefined) result.stdout = stdout
  if (stderr !== undefined) result.stderr = stderr
  return [
    {
      type: 'server_tool_use',
      id,
      name: CODE_EXECUTION_TYPE,
      input: { ...(language ? { language } : {}), ...(code !== undefined ? { code } : {}) },
    },
    result,
  ]
}

/** Chat `server_tool_calls` as messages blocks: each call a server_tool_use, then its result. */
export function serverCallsToBlocks(calls: unknown): MessagesServerBlock[] {
  if (!Array.isArray(calls)) return []
  const blocks: MessagesServerBlock[] = []
  for (const call of calls) {
    if (!isRecord(call)) continue
    if (call.type === CODE_EXECUTION_TYPE) {
      blocks.push(...runBlocks(call))
      continue
    }
    if (call.type !== TOOL_SEARCH_TYPE) continue
    const id = callId(call.id)
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

function resultId(block: Record<string, unknown>): string {
  return typeof block.tool_use_id === 'string' && block.tool_use_id ? block.tool_use_id : ''
}

/**
 * Messages server blocks as chat `server_tool_calls`, in order, and the `tool_search` record:
 * the names the successful searches of this turn loaded, each once (only when the turn searched).
 * A call whose result block is missing (a cut stream) reads as failed; a result without its
 * server_tool_use still counts, with an empty query (searches) or no code (runs).
 */
export function serverBlocksToChat(blocks: readonly unknown[]): ChatServerRecords {
  const calls = new Map<string, ServerToolCall>()
  const loaded = new Set<string>()
  let searched = false
  for (const block of blocks) {
    if (!isRecord(block)) continue
    if (block.type === 'server_tool_use' && block.name === TOOL_SEARCH_TYPE) {
      const id = callId(block.id)
      const input = isRecord(block.input) ? block.input : {}
      const query = stringOr(input.query)
      calls.set(id, { id, type: TOOL_SEARCH_TYPE, query, loaded: [], status: 'error' })
      searched = true
    } else if (block.type === 'server_tool_use' && block.name === CODE_EXECUTION_TYPE) {
      const id = callId(block.id)
      const input = isRecord(block.input) ? block.input : {}
      const { language, code } = runDetail(input)
      calls.set(id, {
        id,
        type: CODE_EXECUTION_TYPE,
        status: 'error',
        exit_code: null,
        duration_ms: 0,
        ...(language ? { language } : {}),
        ...(code !== undefined ? { code } : {}),
      })
    } else if (block.type === 'syntic_tool_search_result') {
      const id = resultId(block)
      const known = calls.get(id)
      const query = known?.type === TOOL_SEARCH_TYPE ? known.query : ''
      const result: ToolSearchCall = {
        id: id || newId('srv_'),
        type: TOOL_SEARCH_TYPE,
        query,
        loaded: names(block.loaded),
        status: status(block.status),
      }
      calls.set(result.id, result)
      searched = true
      if (result.status === 'ok') for (const name of result.loaded) loaded.add(name)
    } else if (block.type === 'syntic_code_execution_result') {
      const id = resultId(block)
      const known = calls.get(id)
      const result: CodeExecutionCall = {
        ...(known?.type === CODE_EXECUTION_TYPE ? known : {}),
        id: id || newId('srv_'),
        type: CODE_EXECUTION_TYPE,
        status: runStatus(block.status),
        exit_code: exitCode(block.exit_code),
        duration_ms: milliseconds(block.duration_ms),
      }
      const { stdout, stderr } = runDetail(block)
      if (stdout !== undefined) result.stdout = stdout
      if (stderr !== undefined) result.stderr = stderr
      calls.set(result.id, result)
    }
  }
  if (calls.size === 0) return {}
  const records: ChatServerRecords = { server_tool_calls: [...calls.values()] }
  if (searched) records.tool_search = { loaded: [...loaded] }
  return records
}
