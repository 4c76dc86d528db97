// Validation of `POST /v1/messages` bodies: hand-written checks, no schema compilation, no
// recursion into caller JSON, stopping at the first problem. Nullability follows the official
// SDK: a field the messages API does not declare nullable rejects null.
import {
  asArray,
  asBody,
  asBoolean,
  asIntegerIn,
  asNonEmptyString,
  asNumberIn,
  asOneOf,
  asRecord,
  asString,
  checkDepth,
  checkEach,
  checkKeys,
  invalid,
  type RequestCheck,
  reject,
  runCheck,
} from '../chat/request-check.js'
import { JSON_DEPTH_MAX, THINKING_BUDGET_MIN } from '../chat/request-limits.js'
import {
  checkStandardToolEntry,
  checkToolName,
  rejectUnknownToolType,
} from '../chat/tool-checks.js'
import { CODE_EXECUTION_TYPE } from '../server-tools/code-execution.js'
import {
  type CodeExecutionUsage,
  checkCodeExecutionEntry,
  checkCodeExecutionResultBlock,
  checkInclude,
} from '../server-tools/code-execution-checks.js'
import {
  checkServerToolUseBlock,
  checkToolSearchResultBlock,
} from '../server-tools/record-checks.js'
import {
  type ChosenTool,
  checkChosenToolLoadable,
  checkMcpServers,
  checkToolCount,
  checkToolSearchEntry,
  checkToolSearchRequired,
  newToolSearchUsage,
  noteDeferLoading,
  rejectDeferredStandardTool,
  type ToolSearchUsage,
} from '../server-tools/request-checks.js'
import { TOOL_SEARCH_TYPE } from '../server-tools/types.js'
import { isStandardToolType } from '../standard-tools/types.js'
import type { MessagesRequest } from './types.js'

const MAX = Number.MAX_SAFE_INTEGER
const keys = (...names: string[]): ReadonlySet<string> => new Set(names)

type FieldCheck = (value: unknown, param: string, body: Record<string, unknown>) => void

const nullable =
  (check: FieldCheck): FieldCheck =>
  (value, param, body) => {
    if (value !== null) check(value, param, body)
  }

function checkCacheControl(value: unknown, param: string): void {
  if (value === null) return
  const control = asRecord(value, param)
  checkKeys(control, keys('type', 'ttl'), param)
  asOneOf(control.type, `${param}.type`, ['ephemeral'])
  if (control.ttl !== undefined) asOneOf(control.ttl, `${param}.ttl`, ['5m', '1h'])
}

const TEXT_KEYS = keys('type', 'text', 'cache_control', 'citations')

function checkTextBlock(block: Record<string, unknown>, at: string): void {
  checkKeys(block, TEXT_KEYS, at)
  if (typeof block.text !== 'string' || block.text.length === 0) {
    invalid(`${at}.text`, 'a non-empty string', block.text)
  }
  if (block.cache_control !== undefined)
    checkCacheControl(block.cache_control, `${at}.cache_control`)
  if (block.citations !== undefined && block.citations !== null) {
    checkEach(block.citations, `${at}.citations`, asRecord)
  }
}

function checkTextBlocks(value: unknown, param: string): void {
  const blocks = asArray(value, param)
  for (let i = 0; i < blocks.length; i++) {
    const at = `${param}[${i}]`
    const block = asRecord(blocks[i], at)
    asOneOf(block.type, `${at}.type`, ['text'])
    checkTextBlock(block, at)
  }
}

const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const

function checkImageBlock(block: Record<string, unknown>, at: string): void {
  checkKeys(block, keys('type', 'source', 'cache_control', 'transformations'), at)
  const param = `${at}.source`
  const source = asRecord(block.source, param)
  const type = asOneOf(source.type, `${param}.type`, ['base64', 'url', 'file'])
  if (type === 'base64') {
    checkKeys(source, keys('type', 'media_type', 'data'), param)
    asOneOf(source.media_type, `${param}.media_type`, IMAGE_MEDIA_TYPES)
    asNonEmptyString(source.data, `${param}.data`)
  } else if (type === 'url') {
    checkKeys(source, keys('type', 'url'), param)
    const url = asString(source.url, `${param}.url`)
    if (!/^https?:\/\//i.test(url)) invalid(`${param}.url`, 'an http(s) URL', url)
  } else {
    checkKeys(source, keys('type', 'file_id'), param)
    asNonEmptyString(source.file_id, `${param}.file_id`)
  }
  if (block.cache_control !== undefined)
    checkCacheControl(block.cache_control, `${at}.cache_control`)
  if (block.transformations !== undefined && block.transformations !== null) {
    const transformations = asRecord(block.transformations, `${at}.transformations`)
    checkKeys(transformations, keys('oversized_image'), `${at}.transformations`)
    if (transformations.oversized_image !== undefined) {
      asOneOf(transformations.oversized_image, `${at}.transformations.oversized_image`, [
        'downsize',
        'error',
      ])
    }
  }
}

function checkDocumentBlock(block: Record<string, unknown>, at: string): void {
  checkKeys(block, keys('type', 'source', 'title', 'context', 'citations', 'cache_control'), at)
  const param = `${at}.source`
  const source = asRecord(block.source, param)
  const type = asOneOf(source.type, `${param}.type`, ['base64', 'text', 'url', 'file', 'content'])
  if (type === 'base64' || type === 'text') {
    checkKeys(source, keys('type', 'media_type', 'data'), param)
    const media = type === 'base64' ? 'application/pdf' : 'text/plain'
    asOneOf(source.media_type, `${param}.media_type`, [media])
    asString(source.data, `${param}.data`)
  } else if (type === 'url') {
    checkKeys(source, keys('type', 'url'), param)
    asNonEmptyString(source.url, `${param}.url`)
  } else if (type === 'file') {
    checkKeys(source, keys('type', 'file_id'), param)
    asNonEmptyString(source.file_id, `${param}.file_id`)
  } else {
    checkKeys(source, keys('type', 'content'), param)
    if (typeof source.content !== 'string') {
      checkBlocks(source.content, `${param}.content`, CONTENT_SOURCE_BLOCKS)
    }
  }
  for (const key of ['title', 'context']) {
    if (block[key] !== undefined && block[key] !== null) asString(block[key], `${at}.${key}`)
  }
  if (block.citations !== undefined && block.citations !== null) {
    const citations = asRecord(block.citations, `${at}.citations`)
    checkKeys(citations, keys('enabled'), `${at}.citations`)
    if (citations.enabled !== undefined) asBoolean(citations.enabled, `${at}.citations.enabled`)
  }
  if (block.cache_control !== undefined)
    checkCacheControl(block.cache_control, `${at}.cache_control`)
}

function checkToolUseBlock(block: Record<string, unknown>, at: string): string {
  checkKeys(block, keys('type', 'id', 'name', 'input', 'cache_control', 'caller'), at)
  const id = asNonEmptyString(block.id, `${at}.id`)
  asNonEmptyString(block.name, `${at}.name`)
  asRecord(block.input, `${at}.input`)
  if (block.cache_control !== undefined)
    checkCacheControl(block.cache_control, `${at}.cache_control`)
  if (block.caller !== undefined) asRecord(block.caller, `${at}.caller`)
  return id
}

function checkToolResultBlock(block: Record<string, unknown>, at: string): string {
  checkKeys(block, keys('type', 'tool_use_id', 'content', 'is_error', 'cache_control'), at)
  const id = asNonEmptyString(block.tool_use_id, `${at}.tool_use_id`)
  if (block.content !== undefined && typeof block.content !== 'string') {
    checkBlocks(block.content, `${at}.content`, TOOL_RESULT_BLOCKS)
  }
  if (block.is_error !== undefined) asBoolean(block.is_error, `${at}.is_error`)
  if (block.cache_control !== undefined)
    checkCacheControl(block.cache_control, `${at}.cache_control`)
  return id
}

type BlockType =
  | 'text'
  | 'image'
  | 'document'
  | 'tool_use'
  | 'tool_result'
  | 'thinking'
  | 'redacted_thinking'
  | 'server_tool_use'
  | 'syntic_tool_search_result'
  | 'syntic_code_execution_result'

const USER_BLOCKS: readonly BlockType[] = ['text', 'image', 'document', 'tool_result']
const ASSISTANT_BLOCKS: readonly BlockType[] = [
  'text',
  'tool_use',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'syntic_tool_search_result',
  'syntic_code_execution_result',
]
const TOOL_RESULT_BLOCKS: readonly BlockType[] = ['text', 'image', 'document']
const CONTENT_SOURCE_BLOCKS: readonly BlockType[] = ['text', 'image']

/** Ids of the tool_use, tool_result and server_tool_use blocks seen in one message's content. */
interface ToolIds {
  uses: string[]
  results: { id: string; at: string }[]
  serverUses: Set<string>
}

/** Checks an array of content blocks whose types must be among `allowed`. */
function checkBlocks(
  value: unknown,
  param: string,
  allowed: readonly BlockType[],
  ids: ToolIds = { uses: [], results: [], serverUses: new Set() },
): void {
  const blocks = asArray(value, param)
  for (let i = 0; i < blocks.length; i++) {
    const at = `${param}[${i}]`
    const block = asRecord(blocks[i], at)
    const type = asOneOf(block.type, `${at}.type`, allowed)
    switch (type) {
      case 'text':
        checkTextBlock(block, at)
        break
      case 'image':
        checkImageBlock(block, at)
        break
      case 'document':
        checkDocumentBlock(block, at)
        break
      case 'tool_use':
        ids.uses.push(checkToolUseBlock(block, at))
        break
      case 'tool_result':
        ids.results.push({ id: checkToolResultBlock(block, at), at: `${at}.tool_use_id` })
        break
      case 'server_tool_use':
        checkServerToolUseBlock(block, at, ids.serverUses)
        break
      case 'syntic_tool_search_result':
        checkToolSearchResultBlock(block, at, ids.serverUses)
        break
      case 'syntic_code_execution_result':
        checkCodeExecutionResultBlock(block, at, ids.serverUses)
        break
      case 'thinking':
        checkKeys(block, keys('type', 'thinking', 'signature'), at)
        asString(block.thinking, `${at}.thinking`)
        asString(block.signature, `${at}.signature`)
        break
      case 'redacted_thinking':
        checkKeys(block, keys('type', 'data'), at)
        asString(block.data, `${at}.data`)
        break
    }
  }
}

const MESSAGE_KEYS = keys('role', 'content')

function checkMessages(value: unknown): void {
  const messages = asArray(value, 'messages')
  if (messages.length === 0) invalid('messages', 'at least one message', value)
  // Each tool_result must answer a tool_use of the assistant message right before it, and every
  // tool_use must be answered in the message that follows.
  let open: Set<string> | undefined
  let openAt = ''
  for (let i = 0; i < messages.length; i++) {
    const at = `messages[${i}]`
    const message = asRecord(messages[i], at)
    const role = asOneOf(message.role, `${at}.role`, ['user', 'assistant', 'system'])
    checkKeys(message, MESSAGE_KEYS, at)
    const content = message.content
    const last = i === messages.length - 1
    const empty = content === '' || (Array.isArray(content) && content.length === 0)
    if (empty && !(last && role === 'assistant')) {
      invalid(
        `${at}.content`,
        'non-empty content (only a final assistant message may be empty)',
        content,
      )
    }
    const ids: ToolIds = { uses: [], results: [], serverUses: new Set() }
    if (typeof content !== 'string') {
      if (!Array.isArray(content)) {
        invalid(`${at}.content`, 'a string or an array of content blocks', content)
      }
      if (role === 'system') checkTextBlocks(content, `${at}.content`)
      else
        checkBlocks(content, `${at}.content`, role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS, ids)
    }
    for (const result of ids.results) {
      if (open === undefined || !open.delete(result.id)) {
        reject(
          'invalid_request',
          result.at,
          `A tool_result must answer a tool_use of the assistant message right before it; none has the id ${JSON.stringify(result.id.slice(0, 64))}.`,
        )
      }
    }
    if (open !== undefined && open.size > 0) {
      reject(
        'invalid_request',
        `${openAt}.content`,
        `Each tool_use needs a tool_result in the next message; none came for ${[...open].join(', ')}.`,
      )
    }
    open = ids.uses.length > 0 ? new Set(ids.uses) : undefined
    openAt = at
  }
}

const CUSTOM_TOOL_KEYS = keys(
  'type',
  'name',
  'description',
  'input_schema',
  'cache_control',
  'strict',
  'defer_loading',
  'eager_input_streaming',
  'input_examples',
  'allowed_callers',
)

function checkCustomTool(tool: Record<string, unknown>, at: string, names: Set<string>): string {
  checkKeys(tool, CUSTOM_TOOL_KEYS, at)
  const name = checkToolName(tool.name, `${at}.name`, names)
  if (tool.description !== undefined) asString(tool.description, `${at}.description`)
  const schema = asRecord(tool.input_schema, `${at}.input_schema`)
  asOneOf(schema.type, `${at}.input_schema.type`, ['object'])
  if (tool.cache_control !== undefined) checkCacheControl(tool.cache_control, `${at}.cache_control`)
  if (tool.strict !== undefined) asBoolean(tool.strict, `${at}.strict`)
  if (tool.eager_input_streaming !== undefined && tool.eager_input_streaming !== null) {
    asBoolean(tool.eager_input_streaming, `${at}.eager_input_streaming`)
  }
  if (tool.input_examples !== undefined) {
    checkEach(tool.input_examples, `${at}.input_examples`, asRecord)
  }
  if (tool.allowed_callers !== undefined) {
    checkEach(tool.allowed_callers, `${at}.allowed_callers`, asString)
  }
  return name
}

const CLIENT_TOOL_NOTE =
  ' A client tool on /v1/messages has no type (or "custom") and sets name, description and input_schema.'

/**
 * Checks `tools`, adds to `names` every name the model may call and notes in `usage` which tools
 * are deferred.
 */
function checkTools(value: unknown, names: Set<string>, usage: ToolSearchUsage): void {
  const tools = asArray(value, 'tools')
  // Length first, so an oversized list fails before its entries are walked; one search entry is
  // allowed on top, as it is no tool of the caller's.
  checkToolCount(tools.length, 2, 'tools')
  const codeExecution: CodeExecutionUsage = { at: undefined }
  const standard = new Map<string, string>()
  for (let i = 0; i < tools.length; i++) {
    const at = `tools[${i}]`
    const tool = asRecord(tools[i], at)
    const type = tool.type
    if (type === undefined || type === null || type === 'custom') {
      const name = checkCustomTool(tool, at, names)
      noteDeferLoading(tool.defer_loading, at, name, usage)
    } else if (type === TOOL_SEARCH_TYPE) {
      checkToolSearchEntry(tool, at, usage)
      names.add(TOOL_SEARCH_TYPE)
    } else if (type === CODE_EXECUTION_TYPE) {
      checkCodeExecutionEntry(tool, at, codeExecution)
      names.add(CODE_EXECUTION_TYPE)
    } else if (isStandardToolType(type)) {
      rejectDeferredStandardTool(tool, at)
      checkStandardToolEntry(tool, type, at, standard)
      names.add(type)
      usage.loaded += 1
    } else {
      rejectUnknownToolType(
        type,
        `${at}.type`,
        ['custom', TOOL_SEARCH_TYPE, CODE_EXECUTION_TYPE],
        CLIENT_TOOL_NOTE,
      )
    }
  }
  const serverEntries = (usage.searchAt === undefined ? 0 : 1) + (codeExecution.at ? 1 : 0)
  checkToolCount(tools.length, serverEntries, 'tools')
}

/** Checks tool_choice; returns the tool it names, if it names one. */
function checkToolChoice(value: unknown, names: Set<string>): ChosenTool | undefined {
  const param = 'tool_choice'
  const choice = asRecord(value, param)
  const type = asOneOf(choice.type, `${param}.type`, ['auto', 'any', 'tool', 'none'])
  const allowed =
    type === 'none'
      ? keys('type')
      : type === 'tool'
        ? keys('type', 'name', 'disable_parallel_tool_use')
        : keys('type', 'disable_parallel_tool_use')
  checkKeys(choice, allowed, param)
  if (choice.disable_parallel_tool_use !== undefined) {
    asBoolean(choice.disable_parallel_tool_use, `${param}.disable_parallel_tool_use`)
  }
  if ((type === 'any' || type === 'tool') && names.size === 0) {
    reject('invalid_request', param, `tool_choice "${type}" needs at least one tool.`)
  }
  if (type !== 'tool') return undefined
  const name = asNonEmptyString(choice.name, `${param}.name`)
  if (!names.has(name)) invalid(`${param}.name`, 'the name of a tool listed in tools', name)
  return { name, param: `${param}.name` }
}

function checkThinking(value: unknown, param: string, body: Record<string, unknown>): void {
  const thinking = asRecord(value, param)
  const type = asOneOf(thinking.type, `${param}.type`, [
    'enabled',
    'disabled',
    'adaptive',
    'between_tools',
  ])
  if (type === 'enabled') {
    checkKeys(thinking, keys('type', 'budget_tokens', 'display'), param)
    const budget = asIntegerIn(
      thinking.budget_tokens,
      `${param}.budget_tokens`,
      THINKING_BUDGET_MIN,
      MAX,
    )
    if (typeof body.max_tokens === 'number' && budget >= body.max_tokens) {
      invalid(`${param}.budget_tokens`, `a number below max_tokens (${body.max_tokens})`, budget)
    }
  } else if (type === 'adaptive') {
    checkKeys(thinking, keys('type', 'display'), param)
  } else {
    checkKeys(thinking, keys('type'), param)
  }
  if (thinking.display !== undefined && thinking.display !== null) {
    asOneOf(thinking.display, `${param}.display`, ['summarized', 'omitted'])
  }
}

function checkSystem(value: unknown, param: string): void {
  if (typeof value === 'string') return
  if (!Array.isArray(value)) invalid(param, 'a string or an array of text blocks', value)
  checkTextBlocks(value, param)
}

function checkStopSequences(value: unknown, param: string): void {
  checkEach(value, param, (stop, at) => {
    if (typeof stop !== 'string' || stop.trim() === '') {
      invalid(at, 'a string with a non-whitespace character', stop)
    }
  })
}

function checkMetadata(value: unknown, param: string): void {
  const metadata = asRecord(value, param)
  checkKeys(metadata, keys('user_id'), param)
  if (metadata.user_id !== undefined && metadata.user_id !== null) {
    asString(metadata.user_id, `${param}.user_id`)
  }
}

function checkContainer(value: unknown, param: string): void {
  if (typeof value === 'string') return
  const container = asRecord(value, param)
  checkKeys(container, keys('id', 'skills'), param)
  if (container.id !== undefined && container.id !== null) asString(container.id, `${param}.id`)
  if (container.skills !== undefined && container.skills !== null) {
    checkEach(container.skills, `${param}.skills`, asRecord)
  }
}

function checkDiagnostics(value: unknown, param: string): void {
  const diagnostics = asRecord(value, param)
  checkKeys(diagnostics, keys('previous_message_id'), param)
  const previous = diagnostics.previous_message_id
  if (previous !== undefined && previous !== null)
    asString(previous, `${param}.previous_message_id`)
}

const string: FieldCheck = (value, param) => asString(value, param)
const record: FieldCheck = (value, param) => asRecord(value, param)

const FIELD_CHECKS: Record<string, FieldCheck> = {
  system: checkSystem,
  metadata: checkMetadata,
  stop_sequences: checkStopSequences,
  stream: (value, param) => asBoolean(value, param),
  temperature: (value, param) => asNumberIn(value, param, 0, 1),
  top_p: (value, param) => asNumberIn(value, param, 0, 1),
  top_k: (value, param) => asIntegerIn(value, param, 0, MAX),
  thinking: checkThinking,
  service_tier: (value, param) => asOneOf(value, param, ['auto', 'standard_only']),
  container: nullable(checkContainer),
  cache_control: checkCacheControl,
  context_management: nullable(record),
  diagnostics: nullable(checkDiagnostics),
  inference_geo: nullable(string),
  output_config: record,
  speed: nullable((value, param) => asOneOf(value, param, ['standard', 'fast'])),
  user_profile_id: string,
  workspace_id: string,
  include: checkInclude,
}

const REQUEST_FIELDS = keys(
  'model',
  'messages',
  'max_tokens',
  'tools',
  'tool_choice',
  'mcp_servers',
  ...Object.keys(FIELD_CHECKS),
)

function checkMessagesRequest(body: unknown): MessagesRequest {
  const request = asBody(body)
  checkKeys(request, REQUEST_FIELDS, '')
  checkDepth(request, JSON_DEPTH_MAX)
  asNonEmptyString(request.model, 'model')
  if (request.max_tokens === undefined) {
    reject(
      'invalid_request',
      'max_tokens',
      'max_tokens is required: the most tokens the answer may use, a positive integer.',
    )
  }
  asIntegerIn(request.max_tokens, 'max_tokens', 1, MAX)
  checkMessages(request.messages)
  const names = new Set<string>()
  const usage = newToolSearchUsage()
  if (request.tools !== undefined) checkTools(request.tools, names, usage)
  if (request.mcp_servers !== undefined) checkMcpServers(request.mcp_servers, 'mcp_servers', usage)
  checkToolSearchRequired(usage)
  if (request.tool_choice !== undefined) {
    checkChosenToolLoadable(usage, checkToolChoice(request.tool_choice, names))
  }
  for (const [key, check] of Object.entries(FIELD_CHECKS)) {
    const value = request[key]
    if (value !== undefined) check(value, key, request)
  }
  return request as unknown as MessagesRequest
}

/**
 * Checks a `POST /v1/messages` body. On success `value` is the body itself, typed (no copy); on
 * failure `problem` names the first offending field with its path.
 */
export function validateMessagesRequest(body: unknown): RequestCheck<MessagesRequest> {
  return runCheck(body, checkMessagesRequest)
}
