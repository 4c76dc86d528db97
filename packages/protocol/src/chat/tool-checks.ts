// Checks of tool list entries that both endpoints share: names, standard tool entries and the
// three standard tool errors of the spec (unknown_tool_type, duplicate_tool_type,
// tool_name_conflict).
import { RESERVED_TOOL_PREFIX } from '../limits.js'
import { TOOL_SEARCH_TYPE } from '../server-tools/types.js'
import { validateStandardToolOptions } from '../standard-tools/definitions.js'
import {
  isStandardToolType,
  STANDARD_TOOL_TYPES,
  type StandardToolType,
} from '../standard-tools/types.js'
import { closestName, invalid, quote, reject, rejectListedTwice } from './request-check.js'
import { TOOL_NAME_PATTERN } from './request-limits.js'

/**
 * Checks the name of a caller-defined tool and records it in `names`. The reserved prefix is
 * matched without regard to case, so `Syntic_Shell` cannot pass for a built-in tool either.
 */
export function checkToolName(value: unknown, param: string, names: Set<string>): string {
  if (typeof value !== 'string') return invalid(param, 'a string', value)
  if (value.toLowerCase().startsWith(RESERVED_TOOL_PREFIX)) {
    const standard = STANDARD_TOOL_TYPES.find((type) => type === value.toLowerCase())
    const instead =
      standard === undefined ? '' : ` To use the standard tool, list { "type": "${standard}" }.`
    reject(
      'tool_name_conflict',
      param,
      `Tool name ${quote(value)} starts with "${RESERVED_TOOL_PREFIX}", a prefix reserved for built-in tools; rename the tool.${instead}`,
    )
  }
  if (!TOOL_NAME_PATTERN.test(value)) {
    invalid(param, 'a name of 1 to 64 letters, digits, underscores or hyphens', value)
  }
  if (names.has(value)) {
    reject(
      'invalid_request',
      param,
      `Duplicate tool name "${value}": each tool needs its own name.`,
    )
  }
  names.add(value)
  return value
}

/**
 * Checks a standard tool entry (`{ "type": "syntic_shell", "max_output_chars": 20000 }`) at `at`:
 * listed once, options valid for its type. `seen` maps each standard type to where it was listed.
 */
export function checkStandardToolEntry(
  entry: Record<string, unknown>,
  type: StandardToolType,
  at: string,
  seen: Map<string, string>,
): void {
  const first = seen.get(type)
  if (first !== undefined) rejectListedTwice(type, first, at, 'list each standard tool once')
  seen.set(type, at)
  const options = validateStandardToolOptions(type, entry)
  if (!options.ok) reject('invalid_request', `${at}.${options.param}`, options.error)
}

/** Anthropic's and common names for the same kinds of tool, to point callers at ours. */
function likelyBuiltInType(normalised: string): string | undefined {
  if (isStandardToolType(`syntic_${normalised}`)) return `syntic_${normalised}` as StandardToolType
  // Anthropic's tool_search_tool_regex_20251119 and tool_search_tool_bm25_20251119 among them.
  if (normalised.startsWith('tool_search')) return TOOL_SEARCH_TYPE
  if (normalised.startsWith('bash') || normalised.startsWith('shell')) return 'syntic_shell'
  if (normalised.includes('text_editor') || normalised.includes('str_replace')) {
    return 'syntic_text_editor'
  }
  if (normalised.startsWith('memory')) return 'syntic_memory'
  return undefined
}

/**
 * Rejects a `tools[i].type` that is neither one of the endpoint's own tool types nor a standard
 * tool type, suggesting the closest valid name.
 */
export function rejectUnknownToolType(
  type: unknown,
  param: string,
  endpointTypes: readonly string[],
  note = '',
): never {
  const valid = [...endpointTypes, ...STANDARD_TOOL_TYPES]
  if (typeof type !== 'string') {
    return invalid(param, `a tool type (${valid.join(', ')})`, type)
  }
  const guess =
    closestName(type, valid) ?? likelyBuiltInType(type.toLowerCase().replace(/[-\s.]/g, '_'))
  const hint = guess === undefined ? '' : ` Did you mean "${guess}"?`
  return reject(
    'unknown_tool_type',
    param,
    `Unknown tool type ${quote(type)}.${hint} Valid types: ${valid.join(', ')}.${note}`,
  )
}
