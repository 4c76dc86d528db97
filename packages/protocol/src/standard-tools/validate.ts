import type { TObject, TUnion } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { MemoryInput, ShellInput, TextEditorInput } from './inputs.js'
import type { StandardToolType } from './types.js'

export type InputCheck<T> = { ok: true; value: T } | { ok: false; error: string }

interface InputsByType {
  syntic_text_editor: TextEditorInput
  syntic_shell: ShellInput
  syntic_memory: MemoryInput
}

const schemas: Record<StandardToolType, TUnion<TObject[]>> = {
  syntic_text_editor: TextEditorInput,
  syntic_shell: ShellInput,
  syntic_memory: MemoryInput,
}

function commandOf(variant: TObject): string {
  return (variant.properties.command as unknown as { const: string }).const
}

function describeKind(schema: unknown): string {
  const s = schema as { type?: string; items?: unknown[] }
  if (s.type === 'array' && Array.isArray(s.items)) return `an array of ${s.items.length} integers`
  if (s.type === 'integer') return 'an integer'
  if (s.type === 'number') return 'a number'
  if (s.type === 'string') return 'a string'
  return 'valid'
}

function typeOfValue(value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/**
 * Checks a model's tool input against the command it names, with an error the model can act on:
 * the offending argument by name and what it must be.
 */
export function checkToolInput<T extends StandardToolType>(
  type: T,
  input: unknown,
): InputCheck<InputsByType[T]> {
  const variants = schemas[type].anyOf
  const commands = variants.map(commandOf)
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, error: `input must be a JSON object, got ${typeOfValue(input)}` }
  }
  const record = input as Record<string, unknown>
  const command = record.command
  const variant = variants.find((v) => commandOf(v) === command)
  if (!variant) {
    const got = typeof command === 'string' ? `"${command}"` : typeOfValue(command)
    return {
      ok: false,
      error: `command must be one of ${commands.join(', ')}; got ${got}`,
    }
  }
  const allowed = Object.keys(variant.properties)
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      const args = allowed.filter((k) => k !== 'command')
      return {
        ok: false,
        error: `unknown argument "${key}" for ${command}; it takes ${args.length ? args.join(', ') : 'no arguments'}`,
      }
    }
  }
  for (const key of variant.required ?? []) {
    if (!(key in record)) return { ok: false, error: `${command} needs the argument "${key}"` }
  }
  for (const [key, schema] of Object.entries(variant.properties)) {
    if (key === 'command' || !(key in record)) continue
    if (!Value.Check(schema, record[key])) {
      return {
        ok: false,
        error: `"${key}" must be ${describeKind(schema)}, got ${typeOfValue(record[key])}${
          typeof record[key] === 'number' ? ` (${record[key]})` : ''
        }`,
      }
    }
  }
  return { ok: true, value: input as InputsByType[T] }
}
