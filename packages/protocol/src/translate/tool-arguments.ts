// Tool call arguments: chat carries the model's JSON text, messages a parsed input object.
import { isRecord } from '../chat/request-check.js'

/**
 * The key under which a messages tool input keeps arguments that are not a JSON object (a model
 * wrote invalid JSON, or JSON of another type), as the raw text: `{ "syntic_raw_arguments": "..." }`.
 * Named with the reserved prefix so no caller-defined argument can collide with it; translating
 * back to chat restores the raw text exactly.
 */
export const RAW_ARGUMENTS_KEY = 'syntic_raw_arguments'

/** Chat `function.arguments` text to a messages `input` object; never throws. */
export function argumentsToInput(text: string): Record<string, unknown> {
  if (text.trim() === '') return {}
  try {
    const value: unknown = JSON.parse(text)
    if (isRecord(value)) return value
  } catch {
    // Invalid JSON from a model is kept raw below rather than lost.
  }
  return { [RAW_ARGUMENTS_KEY]: text }
}

function rawArguments(input: unknown): string | undefined {
  if (!isRecord(input)) return undefined
  const keys = Object.keys(input)
  const raw = input[RAW_ARGUMENTS_KEY]
  return keys.length === 1 && typeof raw === 'string' ? raw : undefined
}

/**
 * A messages `input` to chat `function.arguments` text; never throws. Input nested too deeply for
 * `JSON.stringify` (only possible from an unvalidated upstream) becomes a raw-arguments note the
 * tool can report as an error.
 */
export function inputToArguments(input: unknown): string {
  const raw = rawArguments(input)
  if (raw !== undefined) return raw
  try {
    return JSON.stringify(input ?? {})
  } catch {
    return JSON.stringify({ [RAW_ARGUMENTS_KEY]: 'the tool input could not be serialised' })
  }
}
