// Validation of `POST /v1/chat/completions` bodies: hand-written checks, no schema compilation,
// no recursion into caller JSON (so deeply nested input cannot exhaust the stack), stopping at the
// first problem.

import { CODE_EXECUTION_TYPE } from '../server-tools/code-execution.js'
import {
  type CodeExecutionUsage,
  checkCodeExecutionEntry,
  checkFilesRecord,
  checkInclude,
} from '../server-tools/code-execution-checks.js'
import { checkServerToolCalls, checkToolSearchRecord } from '../server-tools/record-checks.js'
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
  tooMany,
} from './request-check.js'
import {
  CHAT_METADATA_KEY_MAX,
  CHAT_METADATA_PAIRS_MAX,
  CHAT_METADATA_VALUE_MAX,
  CHAT_N_MAX,
  CHAT_STOP_MAX,
  JSON_DEPTH_MAX,
  TOOL_NAME_PATTERN,
} from './request-limits.js'
import { checkStandardToolEntry, checkToolName, rejectUnknownToolType } from './tool-checks.js'
import type { ChatCompletionRequest } from './types.js'

const MAX = Number.MAX_SAFE_INTEGER

/** Content that is not a string must be an array of parts. */
function asContentArray(value: unknown, param: string): unknown[] {
  if (!Array.isArray(value)) invalid(param, 'a string or an array of content parts', value)
  return value
}

type FieldCheck = (value: unknown, param: string, body: Record<string, unknown>) => void

const nullable =
  (check: FieldCheck): FieldCheck =>
  (value, param, body) => {
    if (value !== null) check(value, param, body)
  }

const boolean: FieldCheck = (value, param) => asBoolean(value, param)
const string: FieldCheck = (value, param) => asString(value, param)
const numberIn =
  (min: number, max: number): FieldCheck =>
  (value, param) =>
    asNumberIn(value, param, min, max)
const integerIn =
  (min: number, max: number): FieldCheck =>
  (value, param) =>
    asIntegerIn(value, param, min, max)
const oneOf =
  (options: readonly string[]): FieldCheck =>
  (value, param) =>
    asOneOf(value, param, options)
const keys = (...names: string[]): ReadonlySet<string> => new Set(names)

function checkStop(value: unknown, param: string): void {
  if (typeof value === 'string') return
  const stops = asArray(value, param)
  if (stops.length > CHAT_STOP_MAX) {
    invalid(param, `a string or at most ${CHAT_STOP_MAX} strings`, value)
  }
  checkEach(stops, param, asString)
}

function checkLogitBias(value: unknown, param: string): void {
  const bias = asRecord(value, param)
  for (const [token, weight] of Object.entries(bias)) {
    if (!/^\d{1,10}$/.test(token)) invalid(param, 'token ids as keys', token)
    asNumberIn(weight, `${param}.${token}`, -100, 100)
  }
}

function checkMetadata(value: unknown, param: string): void {
  const metadata = asRecord(value, param)
  const entries = Object.entries(metadata)
  if (entries.length > CHAT_METADATA_PAIRS_MAX) {
    tooMany(param, CHAT_METADATA_PAIRS_MAX, entries.length, 'key-value pairs')
  }
  for (const [key, text] of entries) {
    if (key.length > CHAT_METADATA_KEY_MAX) {
      invalid(param, `keys of at most ${CHAT_METADATA_KEY_MAX} characters`, key)
    }
    if (typeof text !== 'string' || text.length > CHAT_METADATA_VALUE_MAX) {
      invalid(`${param}.${key}`, `a string of at most ${CHAT_METADATA_VALUE_MAX} characters`, text)
    }
  }
}

function checkStreamOptions(value: unknown, param: string, body: Record<string, unknown>): void {
  const options = asRecord(value, param)
  checkKeys(options, keys('include_usage', 'include_obfuscation'), param)
  for (const [key, flag] of Object.entries(options)) asBoolean(flag, `${param}.${key}`)
  if (body.stream !== true) {
    reject('invalid_request', param, 'stream_options is only allowed when stream is true.')
  }
}

function checkResponseFormat(value: unknown, param: string): void {
  const format = asRecord(value, param)
  const type = asOneOf(format.type, `${param}.type`, ['text', 'json_object', 'json_schema'])
  if (type !== 'json_schema') {
    checkKeys(format, keys('type'), param)
    return
  }
  checkKeys(format, keys('type', 'json_schema'), param)
  const at = `${param}.json_schema`
  const schema = asRecord(format.json_schema, at)
  checkKeys(schema, keys('name', 'description', 'schema', 'strict'), at)
  if (typeof schema.name !== 'string' || !TOOL_NAME_PATTERN.test(schema.name)) {
    invalid(`${at}.name`, 'a name of 1 to 64 letters, digits, underscores or hyphens', schema.name)
  }
  if (schema.description !== undefined) asString(schema.description, `${at}.description`)
  if (schema.schema !== undefined) asRecord(schema.schema, `${at}.schema`)
  if (schema.strict !== undefined && schema.strict !== null)
    asBoolean(schema.strict, `${at}.strict`)
}

function checkTextParts(value: unknown, param: string): void {
  if (typeof value === 'string') return
  const parts = asContentArray(value, param)
  for (let i = 0; i < parts.length; i++) {
    const at = `${param}[${i}]`
    const part = asRecord(parts[i], at)
    asOneOf(part.type, `${at}.type`, ['text'])
    checkTextPart(part, at)
  }
}

function checkCacheBreakpoint(value: unknown, param: string): void {
  const breakpoint = asRecord(value, param)
  checkKeys(breakpoint, keys('mode'), param)
  asOneOf(breakpoint.mode, `${param}.mode`, ['explicit'])
}

const TEXT_PART_KEYS = keys('type', 'text', 'prompt_cache_breakpoint')

function checkTextPart(part: Record<string, unknown>, at: string): void {
  checkKeys(part, TEXT_PART_KEYS, at)
  asString(part.text, `${at}.text`)
  if (part.prompt_cache_breakpoint !== undefined) {
    checkCacheBreakpoint(part.prompt_cache_breakpoint, `${at}.prompt_cache_breakpoint`)
  }
}

function checkPrediction(value: unknown, param: string): void {
  const prediction = asRecord(value, param)
  checkKeys(prediction, keys('type', 'content'), param)
  asOneOf(prediction.type, `${param}.type`, ['content'])
  checkTextParts(prediction.content, `${param}.content`)
}

function checkAudio(value: unknown, param: string): void {
  const audio = asRecord(value, param)
  checkKeys(audio, keys('format', 'voice'), param)
  asOneOf(audio.format, `${param}.format`, ['wav', 'aac', 'mp3', 'flac', 'opus', 'pcm16'])
  if (typeof audio.voice === 'string') return
  const voice = asRecord(audio.voice, `${param}.voice`)
  checkKeys(voice, keys('id'), `${param}.voice`)
  asString(voice.id, `${param}.voice.id`)
}

function checkWebSearchOptions(value: unknown, param: string): void {
  const options = asRecord(value, param)
  checkKeys(options, keys('search_context_size', 'user_location'), param)
  if (options.search_context_size !== undefined) {
    asOneOf(options.search_context_size, `${param}.search_context_size`, ['low', 'medium', 'high'])
  }
  if (options.user_location !== undefined && options.user_location !== null) {
    asRecord(options.user_location, `${param}.user_location`)
  }
}

function checkPromptCacheOptions(value: unknown, param: string): void {
  const options = asRecord(value, param)
  checkKeys(options, keys('mode', 'ttl'), param)
  if (options.mode !== undefined) asOneOf(options.mode, `${param}.mode`, ['implicit', 'explicit'])
  if (options.ttl !== undefined) asOneOf(options.ttl, `${param}.ttl`, ['30m'])
}

function checkModeration(value: unknown, param: string): void {
  const moderation = asRecord(value, param)
  checkKeys(moderation, keys('model', 'policy'), param)
  asString(moderation.model, `${param}.model`)
  if (moderation.policy !== undefined && moderation.policy !== null) {
    asRecord(moderation.policy, `${param}.policy`)
  }
}

function checkTopLogprobs(value: unknown, param: string, body: Record<string, unknown>): void {
  asIntegerIn(value, param, 0, 20)
  if (body.logprobs !== true) {
    reject('invalid_request', param, 'top_logprobs needs logprobs set to true.')
  }
}

/** Every top-level field the endpoint accepts besides the ones checked with the conversation. */
const FIELD_CHECKS: Record<string, FieldCheck> = {
  parallel_tool_calls: boolean,
  stream: nullable(boolean),
  stream_options: nullable(checkStreamOptions),
  temperature: nullable(numberIn(0, 2)),
  top_p: nullable(numberIn(0, 1)),
  n: nullable(integerIn(1, CHAT_N_MAX)),
  stop: nullable(checkStop),
  max_tokens: nullable(integerIn(1, MAX)),
  max_completion_tokens: nullable(integerIn(1, MAX)),
  presence_penalty: nullable(numberIn(-2, 2)),
  frequency_penalty: nullable(numberIn(-2, 2)),
  logit_bias: nullable(checkLogitBias),
  logprobs: nullable(boolean),
  top_logprobs: nullable(checkTopLogprobs),
  user: string,
  safety_identifier: nullable(string),
  seed: nullable(integerIn(Number.MIN_SAFE_INTEGER, MAX)),
  response_format: checkResponseFormat,
  metadata: nullable(checkMetadata),
  store: nullable(boolean),
  reasoning_effort: nullable(
    oneOf(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const),
  ),
  service_tier: nullable(oneOf(['auto', 'default', 'flex', 'scale', 'priority'])),
  modalities: nullable((value, param) => {
    checkEach(value, param, (m, at) => asOneOf(m, at, ['text', 'audio']))
  }),
  prediction: nullable(checkPrediction),
  audio: nullable(checkAudio),
  web_search_options: checkWebSearchOptions,
  verbosity: nullable(oneOf(['low', 'medium', 'high'])),
  prompt_cache_key: nullable(string),
  prompt_cache_retention: nullable(oneOf(['in_memory', '24h'])),
  prompt_cache_options: checkPromptCacheOptions,
  moderation: nullable(checkModeration),
  include: checkInclude,
}

const CONVERSATION_FIELDS = [
  'model',
  'messages',
  'tools',
  'tool_choice',
  'functions',
  'function_call',
  'mcp_servers',
] as const
const REQUEST_FIELDS = keys(...CONVERSATION_FIELDS, ...Object.keys(FIELD_CHECKS))

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const
const USER_PART_TYPES = ['text', 'image_url', 'input_audio', 'file'] as const

const MESSAGE_KEYS = {
  system: keys('role', 'content', 'name'),
  developer: keys('role', 'content', 'name'),
  user: keys('role', 'content', 'name'),
  assistant: keys(
    'role',
    'content',
    'refusal',
    'name',
    'tool_calls',
    'function_call',
    'audio',
    'server_tool_calls',
    'tool_search',
    'files',
  ),
  tool: keys('role', 'content', 'tool_call_id'),
  function: keys('role', 'content', 'name'),
} as const

function checkUserContent(value: unknown, param: string): void {
  if (typeof value === 'string') return
  const parts = asContentArray(value, param)
  for (let i = 0; i < parts.length; i++) {
    const at = `${param}[${i}]`
    const part = asRecord(parts[i], at)
    const type = asOneOf(part.type, `${at}.type`, USER_PART_TYPES)
    if (type === 'text') {
      checkTextPart(part, at)
      continue
    }
    checkKeys(part, keys('type', type, 'prompt_cache_breakpoint'), at)
    if (part.prompt_cache_breakpoint !== undefined) {
      checkCacheBreakpoint(part.prompt_cache_breakpoint, `${at}.prompt_cache_breakpoint`)
    }
    const inner = `${at}.${type}`
    const body = asRecord(part[type], inner)
    if (type === 'image_url') {
      checkKeys(body, keys('url', 'detail'), inner)
      const url = asString(body.url, `${inner}.url`)
      if (!/^(https?:\/\/|data:)/i.test(url)) {
        invalid(`${inner}.url`, 'an http(s) URL or a data: URL', url)
      }
      if (body.detail !== undefined)
        asOneOf(body.detail, `${inner}.detail`, ['auto', 'low', 'high'])
    } else if (type === 'input_audio') {
      checkKeys(body, keys('data', 'format'), inner)
      asString(body.data, `${inner}.data`)
      asOneOf(body.format, `${inner}.format`, ['wav', 'mp3'])
    } else {
      checkKeys(body, keys('file_data', 'file_id', 'filename'), inner)
      for (const key of ['file_data', 'file_id', 'filename']) {
        if (body[key] !== undefined) asString(body[key], `${inner}.${key}`)
      }
      if (body.file_data === undefined && body.file_id === undefined) {
        invalid(inner, 'file_data or file_id', body)
      }
    }
  }
}

function checkAssistantContent(value: unknown, param: string): void {
  if (typeof value === 'string') return
  const parts = asContentArray(value, param)
  for (let i = 0; i < parts.length; i++) {
    const at = `${param}[${i}]`
    const part = asRecord(parts[i], at)
    const type = asOneOf(part.type, `${at}.type`, ['text', 'refusal'])
    if (type === 'text') {
      checkTextPart(part, at)
    } else {
      checkKeys(part, keys('type', 'refusal'), at)
      asString(part.refusal, `${at}.refusal`)
    }
  }
}

/** Checks an assistant message's tool calls and returns their ids. */
function checkToolCalls(value: unknown, param: string): Set<string> {
  const calls = asArray(value, param)
  const ids = new Set<string>()
  for (let i = 0; i < calls.length; i++) {
    const at = `${param}[${i}]`
    const call = asRecord(calls[i], at)
    const type = asOneOf(call.type, `${at}.type`, ['function', 'custom'])
    checkKeys(call, keys('id', 'type', type), at)
    const id = asNonEmptyString(call.id, `${at}.id`)
    if (ids.has(id)) reject('invalid_request', `${at}.id`, `Duplicate tool call id "${id}".`)
    ids.add(id)
    const inner = `${at}.${type}`
    const body = asRecord(call[type], inner)
    const argument = type === 'function' ? 'arguments' : 'input'
    checkKeys(body, keys('name', argument), inner)
    asNonEmptyString(body.name, `${inner}.name`)
    asString(body[argument], `${inner}.${argument}`)
  }
  return ids
}

function checkFunctionCall(value: unknown, param: string): void {
  const call = asRecord(value, param)
  checkKeys(call, keys('name', 'arguments'), param)
  asNonEmptyString(call.name, `${param}.name`)
  asString(call.arguments, `${param}.arguments`)
}

function checkMessages(value: unknown): void {
  const messages = asArray(value, 'messages')
  if (messages.length === 0) invalid('messages', 'at least one message', value)
  // Tool messages must answer the tool calls of the assistant message right before them.
  let awaited: Set<string> | undefined
  let awaitedAt = ''
  for (let i = 0; i < messages.length; i++) {
    const at = `messages[${i}]`
    const message = asRecord(messages[i], at)
    const role = asOneOf(message.role, `${at}.role`, ROLES)
    checkKeys(message, MESSAGE_KEYS[role], at)
    if (awaited !== undefined && role !== 'tool') {
      if (awaited.size > 0) {
        reject(
          'invalid_request',
          `${awaitedAt}.tool_calls`,
          `An assistant message with tool_calls must be followed by tool messages answering each call; no answer came for ${[...awaited].join(', ')}.`,
        )
      }
      awaited = undefined
    }
    if (role === 'system' || role === 'developer' || role === 'user') {
      if (role === 'user') checkUserContent(message.content, `${at}.content`)
      else checkTextParts(message.content, `${at}.content`)
      if (message.name !== undefined) asString(message.name, `${at}.name`)
    } else if (role === 'assistant') {
      const hasCalls = message.tool_calls !== undefined && message.tool_calls !== null
      const hasFunctionCall = message.function_call !== undefined && message.function_call !== null
      if (message.content !== undefined && message.content !== null) {
        checkAssistantContent(message.content, `${at}.content`)
      } else if (!hasCalls && !hasFunctionCall) {
        invalid(`${at}.content`, 'content, tool_calls or function_call', message.content)
      }
      if (message.refusal !== undefined && message.refusal !== null) {
        asString(message.refusal, `${at}.refusal`)
      }
      if (message.name !== undefined) asString(message.name, `${at}.name`)
      if (hasFunctionCall) checkFunctionCall(message.function_call, `${at}.function_call`)
      if (message.audio !== undefined && message.audio !== null) {
        const audio = asRecord(message.audio, `${at}.audio`)
        checkKeys(audio, keys('id'), `${at}.audio`)
        asString(audio.id, `${at}.audio.id`)
      }
      if (message.server_tool_calls !== undefined) {
        checkServerToolCalls(message.server_tool_calls, `${at}.server_tool_calls`)
      }
      if (message.tool_search !== undefined) {
        checkToolSearchRecord(message.tool_search, `${at}.tool_search`)
      }
      if (message.files !== undefined) checkFilesRecord(message.files, `${at}.files`)
      if (hasCalls) {
        const ids = checkToolCalls(message.tool_calls, `${at}.tool_calls`)
        if (ids.size > 0) {
          awaited = ids
          awaitedAt = at
        }
      }
    } else if (role === 'tool') {
      checkTextParts(message.content, `${at}.content`)
      const id = asNonEmptyString(message.tool_call_id, `${at}.tool_call_id`)
      if (awaited === undefined || !awaited.delete(id)) {
        reject(
          'invalid_request',
          `${at}.tool_call_id`,
          `A tool message must answer a tool call of the assistant message before it; no open call has the id ${JSON.stringify(id.slice(0, 64))}.`,
        )
      }
    } else {
      asNonEmptyString(message.name, `${at}.name`)
      if (message.content !== null) asString(message.content, `${at}.content`)
    }
  }
}

const FUNCTION_KEYS = keys('name', 'description', 'parameters', 'strict')

function checkFunctionDefinition(
  fn: Record<string, unknown>,
  at: string,
  names: Set<string>,
  allowed: ReadonlySet<string>,
): string {
  checkKeys(fn, allowed, at)
  const name = checkToolName(fn.name, `${at}.name`, names)
  if (fn.description !== undefined) asString(fn.description, `${at}.description`)
  if (fn.parameters !== undefined) asRecord(fn.parameters, `${at}.parameters`)
  if (fn.strict !== undefined && fn.strict !== null) asBoolean(fn.strict, `${at}.strict`)
  return name
}

function checkCustomTool(tool: Record<string, unknown>, at: string, names: Set<string>): string {
  checkKeys(tool, keys('type', 'custom', 'defer_loading'), at)
  const inner = `${at}.custom`
  const custom = asRecord(tool.custom, inner)
  checkKeys(custom, keys('name', 'description', 'format'), inner)
  const name = checkToolName(custom.name, `${inner}.name`, names)
  if (custom.description !== undefined) asString(custom.description, `${inner}.description`)
  if (custom.format === undefined) return name
  const format = asRecord(custom.format, `${inner}.format`)
  const type = asOneOf(format.type, `${inner}.format.type`, ['text', 'grammar'])
  if (type === 'text') {
    checkKeys(format, keys('type'), `${inner}.format`)
    return name
  }
  checkKeys(format, keys('type', 'grammar'), `${inner}.format`)
  const grammar = asRecord(format.grammar, `${inner}.format.grammar`)
  checkKeys(grammar, keys('definition', 'syntax'), `${inner}.format.grammar`)
  asString(grammar.definition, `${inner}.format.grammar.definition`)
  asOneOf(grammar.syntax, `${inner}.format.grammar.syntax`, ['lark', 'regex'])
  return name
}

const TOOL_TYPES = ['function', 'custom', TOOL_SEARCH_TYPE, CODE_EXECUTION_TYPE]

/**
 * Checks `tools`, adds to `names` every name the model may call (functions, custom, standard, the
 * search tool) and notes in `usage` which tools are deferred.
 */
function checkTools(
  tools: unknown[],
  names: Set<string>,
  usage: ToolSearchUsage,
  codeExecution: CodeExecutionUsage,
): void {
  const standard = new Map<string, string>()
  for (let i = 0; i < tools.length; i++) {
    const at = `tools[${i}]`
    const tool = asRecord(tools[i], at)
    const type = tool.type
    if (type === 'function') {
      checkKeys(tool, keys('type', 'function', 'defer_loading'), at)
      const name = checkFunctionDefinition(
        asRecord(tool.function, `${at}.function`),
        `${at}.function`,
        names,
        FUNCTION_KEYS,
      )
      noteDeferLoading(tool.defer_loading, at, name, usage)
    } else if (type === 'custom') {
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
    } else if (type === undefined) {
      invalid(`${at}.type`, 'a tool type ("function", "custom" or a standard tool type)', type)
    } else {
      rejectUnknownToolType(type, `${at}.type`, TOOL_TYPES)
    }
  }
}

function checkFunctions(functions: unknown[], names: Set<string>): void {
  const allowed = keys('name', 'description', 'parameters')
  for (let i = 0; i < functions.length; i++) {
    const at = `functions[${i}]`
    checkFunctionDefinition(asRecord(functions[i], at), at, names, allowed)
  }
}

function checkNamedChoice(name: unknown, param: string, names: Set<string>): ChosenTool {
  asNonEmptyString(name, param)
  if (!names.has(name as string)) {
    invalid(param, 'the name of a tool listed in tools', name)
  }
  return { name: name as string, param }
}

/** Checks tool_choice; returns the tool it names, if it names one. */
function checkToolChoice(
  value: unknown,
  names: Set<string>,
  hasTools: boolean,
): ChosenTool | undefined {
  if (typeof value === 'string') {
    const choice = asOneOf(value, 'tool_choice', ['none', 'auto', 'required'])
    if (choice === 'required' && !hasTools) {
      reject('invalid_request', 'tool_choice', 'tool_choice "required" needs at least one tool.')
    }
    return undefined
  }
  const choice = asRecord(value, 'tool_choice')
  const type = asOneOf(choice.type, 'tool_choice.type', ['function', 'custom', 'allowed_tools'])
  checkKeys(choice, keys('type', type), 'tool_choice')
  const inner = asRecord(choice[type], `tool_choice.${type}`)
  if (type === 'allowed_tools') {
    checkKeys(inner, keys('mode', 'tools'), 'tool_choice.allowed_tools')
    asOneOf(inner.mode, 'tool_choice.allowed_tools.mode', ['auto', 'required'])
    checkEach(inner.tools, 'tool_choice.allowed_tools.tools', asRecord)
    return undefined
  }
  checkKeys(inner, keys('name'), `tool_choice.${type}`)
  return checkNamedChoice(inner.name, `tool_choice.${type}.name`, names)
}

function checkFunctionChoice(value: unknown, names: Set<string>): ChosenTool | undefined {
  if (typeof value === 'string') {
    asOneOf(value, 'function_call', ['none', 'auto'])
    return undefined
  }
  const choice = asRecord(value, 'function_call')
  checkKeys(choice, keys('name'), 'function_call')
  return checkNamedChoice(choice.name, 'function_call.name', names)
}

/** Checks tools, functions, mcp_servers and the choice among them, with tool search's rules. */
function checkToolFields(request: Record<string, unknown>): void {
  const tools = request.tools === undefined ? [] : asArray(request.tools, 'tools')
  const functions = request.functions === undefined ? [] : asArray(request.functions, 'functions')
  // Length first, so an oversized list fails before its entries are walked; the server tools'
  // entries (search, code execution) are allowed on top, as they are no tools of the caller's.
  checkToolCount(tools.length + functions.length, 2, 'tools')
  const names = new Set<string>()
  const usage = newToolSearchUsage()
  const codeExecution: CodeExecutionUsage = { at: undefined }
  checkTools(tools, names, usage, codeExecution)
  checkFunctions(functions, names)
  usage.loaded += functions.length
  const serverEntries = (usage.searchAt === undefined ? 0 : 1) + (codeExecution.at ? 1 : 0)
  checkToolCount(tools.length + functions.length, serverEntries, 'tools')
  if (request.mcp_servers !== undefined) checkMcpServers(request.mcp_servers, 'mcp_servers', usage)
  checkToolSearchRequired(usage)
  if (request.tool_choice !== undefined) {
    const chosen = checkToolChoice(request.tool_choice, names, names.size > 0)
    checkChosenToolLoadable(usage, chosen)
  }
  if (request.function_call !== undefined) {
    checkChosenToolLoadable(usage, checkFunctionChoice(request.function_call, names))
  }
}

function checkChatRequest(body: unknown): ChatCompletionRequest {
  const request = asBody(body)
  checkKeys(request, REQUEST_FIELDS, '')
  checkDepth(request, JSON_DEPTH_MAX)
  asNonEmptyString(request.model, 'model')
  checkMessages(request.messages)
  checkToolFields(request)
  for (const [key, check] of Object.entries(FIELD_CHECKS)) {
    const value = request[key]
    if (value !== undefined) check(value, key, request)
  }
  return request as unknown as ChatCompletionRequest
}

/**
 * Checks a `POST /v1/chat/completions` body. On success `value` is the body itself, typed (no
 * copy); on failure `problem` names the first offending field with its path.
 */
export function validateChatRequest(body: unknown): RequestCheck<ChatCompletionRequest> {
  return runCheck(body, checkChatRequest)
}
