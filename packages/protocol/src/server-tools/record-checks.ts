// Checks of what responses carried and clients send back on assistant messages: chat
// `server_tool_calls` and `tool_search`, messages `server_tool_use` and
// `syntic_tool_search_result` blocks. Accepted whether or not the request uses tool search.
import {
  asArray,
  asOneOf,
  asRecord,
  asStringOfLength,
  checkKeys,
  quote,
  reject,
  tooMany,
} from '../chat/request-check.js'
import {
  RECORD_LOADED_MAX,
  RECORD_NAME_MAX_CHARS,
  SERVER_TOOL_CALL_ID_MAX_CHARS,
  SERVER_TOOL_CALLS_MAX,
  TOOL_SEARCH_QUERY_MAX_CHARS,
} from '../limits.js'
import { CODE_EXECUTION_TYPE } from './code-execution.js'
import { checkCodeExecutionCall, checkCodeExecutionInput } from './code-execution-checks.js'
import { TOOL_SEARCH_TYPE } from './types.js'

const STATUSES = ['ok', 'error'] as const

/** A list of loaded tool names: at most 10,000 names of 1 to 64 characters. */
function checkLoadedNames(value: unknown, param: string): void {
  const names = asArray(value, param)
  if (names.length > RECORD_LOADED_MAX) tooMany(param, RECORD_LOADED_MAX, names.length, 'names')
  for (let i = 0; i < names.length; i++) {
    asStringOfLength(names[i], `${param}[${i}]`, 1, RECORD_NAME_MAX_CHARS)
  }
}

function checkId(value: unknown, param: string): string {
  return asStringOfLength(value, param, 1, SERVER_TOOL_CALL_ID_MAX_CHARS)
}

function checkQuery(value: unknown, param: string): void {
  asStringOfLength(value, param, 0, TOOL_SEARCH_QUERY_MAX_CHARS)
}

const CALL_KEYS: ReadonlySet<string> = new Set(['id', 'type', 'query', 'loaded', 'status'])

/** Checks a chat assistant message's `server_tool_calls`: searches and code execution runs. */
export function checkServerToolCalls(value: unknown, param: string): void {
  const calls = asArray(value, param)
  if (calls.length > SERVER_TOOL_CALLS_MAX) {
    tooMany(param, SERVER_TOOL_CALLS_MAX, calls.length, 'server tool calls')
  }
  for (let i = 0; i < calls.length; i++) {
    const at = `${param}[${i}]`
    const call = asRecord(calls[i], at)
    const type = asOneOf(call.type, `${at}.type`, [TOOL_SEARCH_TYPE, CODE_EXECUTION_TYPE])
    if (type === CODE_EXECUTION_TYPE) {
      checkCodeExecutionCall(call, at)
      continue
    }
    checkKeys(call, CALL_KEYS, at)
    checkId(call.id, `${at}.id`)
    checkQuery(call.query, `${at}.query`)
    checkLoadedNames(call.loaded, `${at}.loaded`)
    asOneOf(call.status, `${at}.status`, STATUSES)
  }
}

const RECORD_KEYS: ReadonlySet<string> = new Set(['loaded'])

/** Checks a chat assistant message's `tool_search` record: `{ loaded: [names] }`. */
export function checkToolSearchRecord(value: unknown, param: string): void {
  const record = asRecord(value, param)
  checkKeys(record, RECORD_KEYS, param)
  checkLoadedNames(record.loaded, `${param}.loaded`)
}

const USE_KEYS: ReadonlySet<string> = new Set(['type', 'id', 'name', 'input'])
const INPUT_KEYS: ReadonlySet<string> = new Set(['query'])
const RESULT_KEYS: ReadonlySet<string> = new Set(['type', 'tool_use_id', 'loaded', 'status'])

/** Checks a messages `server_tool_use` block and records its id in `uses`. */
export function checkServerToolUseBlock(
  block: Record<string, unknown>,
  at: string,
  uses: Set<string>,
): void {
  checkKeys(block, USE_KEYS, at)
  const id = checkId(block.id, `${at}.id`)
  const name = asOneOf(block.name, `${at}.name`, [TOOL_SEARCH_TYPE, CODE_EXECUTION_TYPE])
  const input = asRecord(block.input, `${at}.input`)
  uses.add(id)
  if (name === CODE_EXECUTION_TYPE) {
    checkCodeExecutionInput(input, `${at}.input`)
    return
  }
  checkKeys(input, INPUT_KEYS, `${at}.input`)
  checkQuery(input.query, `${at}.input.query`)
  uses.add(id)
}

/**
 * Checks a messages `syntic_tool_search_result` block, which must answer a `server_tool_use`
 * block before it in the same message (`uses`), as the server writes them.
 */
export function checkToolSearchResultBlock(
  block: Record<string, unknown>,
  at: string,
  uses: ReadonlySet<string>,
): void {
  checkKeys(block, RESULT_KEYS, at)
  const id = checkId(block.tool_use_id, `${at}.tool_use_id`)
  if (!uses.has(id)) {
    reject(
      'invalid_request',
      `${at}.tool_use_id`,
      `A syntic_tool_search_result must follow the server_tool_use block it answers, in the same message; none before it has the id ${quote(id)}.`,
    )
  }
  checkLoadedNames(block.loaded, `${at}.loaded`)
  asOneOf(block.status, `${at}.status`, STATUSES)
}
