// Checks of what code execution adds to requests, shared by both endpoints: the tool entry,
// `include`, and the records responses carried that clients send back (chat `server_tool_calls`
// runs and `files`; messages server_tool_use and syntic_code_execution_result blocks).
import {
  asArray,
  asIntegerIn,
  asOneOf,
  asRecord,
  asStringOfLength,
  checkKeys,
  quote,
  reject,
  rejectListedTwice,
  tooMany,
} from '../chat/request-check.js'
import { SERVER_TOOL_CALL_ID_MAX_CHARS } from '../limits.js'
import {
  CODE_EXECUTION_FILES_MAX,
  CODE_EXECUTION_ID_MAX_CHARS,
  CODE_EXECUTION_LANGUAGES,
  CODE_EXECUTION_MAX_RUNS_MAX,
  CODE_EXECUTION_MAX_RUNS_MIN,
  CODE_EXECUTION_RECORD_TEXT_MAX_CHARS,
  CODE_EXECUTION_STATUSES,
  CODE_EXECUTION_TYPE,
  INCLUDE_VALUES,
} from './code-execution.js'

/** Where a request lists the code execution entry, once its tools are walked. */
export interface CodeExecutionUsage {
  at: string | undefined
}

const ENTRY_KEYS: ReadonlySet<string> = new Set(['type', 'container', 'files', 'max_runs'])
const CONTAINER_KEYS: ReadonlySet<string> = new Set(['id'])

/**
 * Checks `{ "type": "syntic_code_execution", "container"?, "files"?, "max_runs"? }`, listed at
 * most once. Ids are only checked for shape here: whether they exist is a 404 later.
 */
export function checkCodeExecutionEntry(
  entry: Record<string, unknown>,
  at: string,
  usage: CodeExecutionUsage,
): void {
  if (usage.at !== undefined) rejectListedTwice(CODE_EXECUTION_TYPE, usage.at, at)
  usage.at = at
  checkKeys(entry, ENTRY_KEYS, at)
  if (entry.container !== undefined && entry.container !== 'auto') {
    const param = `${at}.container`
    if (typeof entry.container === 'string') {
      reject(
        'invalid_request',
        param,
        `Invalid value for ${param}: expected "auto" or {"id": "cntr_..."}, got ${quote(entry.container.slice(0, 80))}.`,
      )
    }
    const container = asRecord(entry.container, param)
    checkKeys(container, CONTAINER_KEYS, param)
    asStringOfLength(container.id, `${param}.id`, 1, CODE_EXECUTION_ID_MAX_CHARS)
  }
  if (entry.files !== undefined) {
    const param = `${at}.files`
    const files = asArray(entry.files, param)
    if (files.length > CODE_EXECUTION_FILES_MAX) {
      tooMany(param, CODE_EXECUTION_FILES_MAX, files.length, 'files')
    }
    for (let i = 0; i < files.length; i++) {
      asStringOfLength(files[i], `${param}[${i}]`, 1, CODE_EXECUTION_ID_MAX_CHARS)
    }
  }
  if (entry.max_runs !== undefined) {
    asIntegerIn(
      entry.max_runs,
      `${at}.max_runs`,
      CODE_EXECUTION_MAX_RUNS_MIN,
      CODE_EXECUTION_MAX_RUNS_MAX,
    )
  }
}

/** Checks the top-level `include`: a short list of known values. */
export function checkInclude(value: unknown, param: string): void {
  const values = asArray(value, param)
  if (values.length > INCLUDE_VALUES.length * 4) {
    tooMany(param, INCLUDE_VALUES.length * 4, values.length, 'values')
  }
  for (let i = 0; i < values.length; i++) asOneOf(values[i], `${param}[${i}]`, INCLUDE_VALUES)
}

function checkText(value: unknown, param: string): void {
  asStringOfLength(value, param, 0, CODE_EXECUTION_RECORD_TEXT_MAX_CHARS)
}

function checkExitCode(value: unknown, param: string): void {
  if (value === null) return
  asIntegerIn(value, param, -(2 ** 31), 2 ** 31 - 1)
}

const CALL_KEYS: ReadonlySet<string> = new Set([
  'id',
  'type',
  'status',
  'exit_code',
  'duration_ms',
  'language',
  'code',
  'stdout',
  'stderr',
])

/** Checks a chat `server_tool_calls[]` entry of a run (its `type` already checked). */
export function checkCodeExecutionCall(call: Record<string, unknown>, at: string): void {
  checkKeys(call, CALL_KEYS, at)
  asStringOfLength(call.id, `${at}.id`, 1, SERVER_TOOL_CALL_ID_MAX_CHARS)
  asOneOf(call.status, `${at}.status`, CODE_EXECUTION_STATUSES)
  checkExitCode(call.exit_code, `${at}.exit_code`)
  asIntegerIn(call.duration_ms, `${at}.duration_ms`, 0, Number.MAX_SAFE_INTEGER)
  if (call.language !== undefined)
    asOneOf(call.language, `${at}.language`, CODE_EXECUTION_LANGUAGES)
  for (const key of ['code', 'stdout', 'stderr'] as const) {
    if (call[key] !== undefined) checkText(call[key], `${at}.${key}`)
  }
}

const FILE_KEYS: ReadonlySet<string> = new Set(['id', 'filename', 'bytes', 'source'])

/** Checks a chat assistant message's `files`, as a response carried them. */
export function checkFilesRecord(value: unknown, param: string): void {
  const files = asArray(value, param)
  if (files.length > CODE_EXECUTION_FILES_MAX * 10) {
    tooMany(param, CODE_EXECUTION_FILES_MAX * 10, files.length, 'files')
  }
  for (let i = 0; i < files.length; i++) {
    const at = `${param}[${i}]`
    const file = asRecord(files[i], at)
    checkKeys(file, FILE_KEYS, at)
    asStringOfLength(file.id, `${at}.id`, 1, CODE_EXECUTION_ID_MAX_CHARS)
    asStringOfLength(file.filename, `${at}.filename`, 1, 1024)
    asIntegerIn(file.bytes, `${at}.bytes`, 0, Number.MAX_SAFE_INTEGER)
    asOneOf(file.source, `${at}.source`, ['code_execution'])
  }
}

const INPUT_KEYS: ReadonlySet<string> = new Set(['language', 'code'])

/** Checks the input of a messages server_tool_use block that names code execution. */
export function checkCodeExecutionInput(input: Record<string, unknown>, at: string): void {
  checkKeys(input, INPUT_KEYS, at)
  if (input.language !== undefined)
    asOneOf(input.language, `${at}.language`, CODE_EXECUTION_LANGUAGES)
  if (input.code !== undefined) checkText(input.code, `${at}.code`)
}

const RESULT_KEYS: ReadonlySet<string> = new Set([
  'type',
  'tool_use_id',
  'status',
  'exit_code',
  'duration_ms',
  'stdout',
  'stderr',
])

/**
 * Checks a messages `syntic_code_execution_result` block, which must answer a server_tool_use
 * block before it in the same message (`uses`), as the server writes them.
 */
export function checkCodeExecutionResultBlock(
  block: Record<string, unknown>,
  at: string,
  uses: ReadonlySet<string>,
): void {
  checkKeys(block, RESULT_KEYS, at)
  const id = asStringOfLength(
    block.tool_use_id,
    `${at}.tool_use_id`,
    1,
    SERVER_TOOL_CALL_ID_MAX_CHARS,
  )
  if (!uses.has(id)) {
    reject(
      'invalid_request',
      `${at}.tool_use_id`,
      `A syntic_code_execution_result must follow the server_tool_use block it answers, in the same message; none before it has the id ${quote(id)}.`,
    )
  }
  asOneOf(block.status, `${at}.status`, CODE_EXECUTION_STATUSES)
  checkExitCode(block.exit_code, `${at}.exit_code`)
  asIntegerIn(block.duration_ms, `${at}.duration_ms`, 0, Number.MAX_SAFE_INTEGER)
  for (const key of ['stdout', 'stderr'] as const) {
    if (block[key] !== undefined) checkText(block[key], `${at}.${key}`)
  }
}
