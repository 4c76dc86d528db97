// Reading one line a mod sent: valid UTF-8, valid JSON, a known `type`. Whether the mod may send
// it (listed slot, granted method) is the host's business; this only says what the line is.
import { isUtf8 } from 'node:buffer'
import type { JsonValue } from '@syntic/mod-sdk'

export type ParsedLine =
  | { kind: 'blank' }
  | { kind: 'bad'; reason: string }
  | { kind: 'draw'; message: Record<string, unknown> }
  | { kind: 'subscribe'; message: Record<string, unknown> }
  | { kind: 'call'; id: JsonValue; method: unknown; params: unknown }

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}

const WHITESPACE_ONLY = /^[ \t\r]*$/

export function parseModLine(bytes: Buffer): ParsedLine {
  if (!isUtf8(bytes)) return { kind: 'bad', reason: 'the line is not valid UTF-8' }
  const text = bytes.toString('utf8')
  if (WHITESPACE_ONLY.test(text)) return { kind: 'blank' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { kind: 'bad', reason: 'the line is not valid JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'bad', reason: 'the line is not a JSON object with a `type`' }
  }
  const message = value as Record<string, unknown>
  switch (message.type) {
    case 'draw':
      return { kind: 'draw', message }
    case 'subscribe':
      return { kind: 'subscribe', message }
    case 'call':
      return {
        kind: 'call',
        id: (message.id ?? null) as JsonValue,
        method: message.method,
        params: message.params,
      }
    default:
      return {
        kind: 'bad',
        reason:
          typeof message.type === 'string'
            ? `unknown type ${JSON.stringify(message.type.slice(0, 40))}`
            : 'the message has no `type`',
      }
  }
}
