import { MAX_OUTPUT_CHARS_MAX, MAX_OUTPUT_CHARS_MIN, ROOT_MAX_CHARS } from '../limits.js'
import type { SynticVersion } from '../versions.js'
import type { StandardToolDefinition, StandardToolOptions, StandardToolType } from './types.js'
import { memory as memory20261101 } from './v2026-11-01/memory.js'
import { shell as shell20261101 } from './v2026-11-01/shell.js'
import { textEditor as textEditor20261101 } from './v2026-11-01/text-editor.js'

/** Renders one standard tool for the model, given the options on the request's tool entry. */
export type StandardToolRenderer = (options: StandardToolOptions) => StandardToolDefinition

/**
 * What each API version shows the model, by tool type. Keyed by every `SynticVersion`, so adding a
 * version to `SYNTIC_VERSIONS` fails to compile until it has a row here. A new version adds a
 * folder (`v<date>/`) for the tools whose text or schema changes and reuses the older renderers for
 * the rest; older rows are never edited, and their fixtures prove it.
 */
const DEFINITIONS: Record<SynticVersion, Record<StandardToolType, StandardToolRenderer>> = {
  '2026-11-01': {
    syntic_text_editor: textEditor20261101,
    syntic_shell: shell20261101,
    syntic_memory: memory20261101,
  },
}

/**
 * What a standard tool type expands into for the model under an API version: its name, the short
 * instructions and a plain JSON Schema for its input. The options must have passed
 * `validateStandardToolOptions`. Each call returns a fresh object.
 */
export function standardToolDefinition(
  type: StandardToolType,
  options: StandardToolOptions,
  version: SynticVersion,
): StandardToolDefinition {
  return DEFINITIONS[version][type](options)
}

export type StandardToolOptionField = keyof StandardToolOptions

/** Which optional fields each type takes (spec: Tool definitions, "Applies to"). */
export const STANDARD_TOOL_OPTION_FIELDS: Readonly<
  Record<StandardToolType, readonly StandardToolOptionField[]>
> = {
  syntic_text_editor: ['root'],
  syntic_shell: ['max_output_chars'],
  syntic_memory: ['root'],
}

export type StandardToolOptionsCheck =
  | { ok: true; options: StandardToolOptions }
  | { ok: false; error: string; param: string }

// The root is pasted into the model's instructions, so anything that could break a line or hide
// text is refused: C0 and C1 controls (NUL, newline, escape...), DEL, the Unicode line and
// paragraph separators, and the bidirectional overrides that make text read differently.
const UNSAFE_ROOT_CHARS = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u

/**
 * Checks a display root (a tool entry's `root`, or the runtime's `displayRoot`, which must accept
 * the same values) and returns it without a trailing slash. `field` names it in the error, with
 * `example` as the value to suggest.
 */
export function checkDisplayRoot(
  value: unknown,
  field = 'root',
  example = '/workspace',
): { ok: true; root: string } | { ok: false; error: string } {
  if (typeof value !== 'string') {
    return { ok: false, error: `${field} must be a string, got ${describe(value)}` }
  }
  if (value.length > ROOT_MAX_CHARS) {
    return {
      ok: false,
      error: `${field} is ${value.length} characters long; the limit is ${ROOT_MAX_CHARS}`,
    }
  }
  if (UNSAFE_ROOT_CHARS.test(value)) {
    return {
      ok: false,
      error: `${field} must not contain NUL, control or line-separator characters`,
    }
  }
  if (!value.startsWith('/')) {
    return {
      ok: false,
      error: `${field} must be an absolute path starting with "/", such as "${example}"; got ${JSON.stringify(value)}`,
    }
  }
  // One trailing slash is harmless ("/workspace/"); it is dropped so the text reads cleanly.
  const root = value.length > 1 && value.endsWith('/') ? value.slice(0, -1) : value
  const parts = root.split('/').slice(1)
  if (root !== '/' && parts.some((p) => p === '' || p === '.' || p === '..')) {
    return {
      ok: false,
      error: `${field} must be a normalised path without "..", "." or empty segments; got ${JSON.stringify(value)}`,
    }
  }
  return { ok: true, root }
}

function checkMaxOutputChars(value: unknown): { ok: true } | { ok: false; error: string } {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return { ok: false, error: `max_output_chars must be an integer, got ${describe(value)}` }
  }
  if (value < MAX_OUTPUT_CHARS_MIN || value > MAX_OUTPUT_CHARS_MAX) {
    return {
      ok: false,
      error: `max_output_chars must be from ${MAX_OUTPUT_CHARS_MIN} to ${MAX_OUTPUT_CHARS_MAX}; got ${value}`,
    }
  }
  return { ok: true }
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number') return Number.isFinite(value) ? `${value}` : String(value)
  if (typeof value === 'string') return 'a string'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

function accepted(fields: readonly string[]): string {
  return fields.length ? `type, ${fields.join(', ')}` : 'type'
}

/**
 * Checks the fields of a request's standard tool entry (the object holding `type`) and returns the
 * options to render with. `param` names the offending field, relative to the entry, so the caller
 * can report `tools[2].root`. Fields apply per type as the spec's table says; any other field is
 * an error. A field explicitly set to `undefined` counts as absent (JSON cannot send one).
 */
export function validateStandardToolOptions(
  type: StandardToolType,
  entry: Record<string, unknown>,
): StandardToolOptionsCheck {
  const fields = STANDARD_TOOL_OPTION_FIELDS[type]
  const options: StandardToolOptions = {}
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'type' || value === undefined) continue
    if (!(fields as readonly string[]).includes(key)) {
      const known = Object.values(STANDARD_TOOL_OPTION_FIELDS).some((f) =>
        (f as readonly string[]).includes(key),
      )
      const why = known ? `does not apply to ${type}` : `is not a field of ${type}`
      return { ok: false, param: key, error: `"${key}" ${why}; it takes ${accepted(fields)}` }
    }
    if (key === 'root') {
      const check = checkDisplayRoot(value)
      if (!check.ok) return { ok: false, param: key, error: check.error }
      options.root = check.root
    } else if (key === 'max_output_chars') {
      const check = checkMaxOutputChars(value)
      if (!check.ok) return { ok: false, param: key, error: check.error }
      options.max_output_chars = value as number
    }
  }
  return { ok: true, options }
}
