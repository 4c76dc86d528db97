// `mod.json`: what a mod is, how to start it and what it may do. Anything unexpected keeps the
// mod from starting, with a warning that names the file and the field.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import {
  EVENT_NAMES,
  type EventName,
  PERMISSION_NAMES,
  type PermissionName,
  PROTOCOL_VERSION,
  SLOT_NAMES,
  type SlotName,
} from '@syntic/mod-sdk'
import { DESCRIPTION_MAX_CHARS, MANIFEST_MAX_BYTES, MOD_NAME_PATTERN } from './limits.js'

export const MANIFEST_FILE = 'mod.json'

export interface ModManifest {
  name: string
  description: string
  /** argv: the program and its arguments, no shell. */
  run: string[]
  events: EventName[]
  ui: SlotName[]
  permissions: PermissionName[]
  protocol: number
}

const FIELDS = new Set(['name', 'description', 'run', 'events', 'ui', 'permissions', 'protocol'])
const RUN_MAX_ARGS = 64
const RUN_ARG_MAX_CHARS = 4096

export type ManifestResult = { ok: true; manifest: ModManifest } | { ok: false; error: string }

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function subset<T extends string>(
  value: unknown,
  field: string,
  allowed: readonly T[],
): { ok: true; list: T[] } | { ok: false; error: string } {
  if (value === undefined) return { ok: true, list: [] }
  if (!Array.isArray(value)) return { ok: false, error: `\`${field}\` must be an array of strings` }
  const list: T[] = []
  for (const item of value) {
    if (typeof item !== 'string') {
      return { ok: false, error: `\`${field}\` must be an array of strings` }
    }
    if (!(allowed as readonly string[]).includes(item)) {
      return {
        ok: false,
        error: `\`${field}\` has unknown value ${JSON.stringify(item)} (allowed: ${allowed.join(', ')})`,
      }
    }
    if (!list.includes(item as T)) list.push(item as T)
  }
  return { ok: true, list }
}

/** Check a parsed `mod.json` against the folder name it was found in. */
export function validateManifest(value: unknown, folderName: string): ManifestResult {
  if (!isRecord(value)) return { ok: false, error: 'must be a JSON object' }
  for (const key of Object.keys(value)) {
    if (!FIELDS.has(key)) return { ok: false, error: `unknown field \`${key}\`` }
  }
  const { name, description, run, protocol } = value
  if (typeof name !== 'string') return { ok: false, error: '`name` must be a string' }
  if (!MOD_NAME_PATTERN.test(name)) {
    return {
      ok: false,
      error: '`name` must be 1 to 64 of a-z, 0-9 and -, starting with a letter or digit',
    }
  }
  if (name !== folderName) {
    return { ok: false, error: `\`name\` is "${name}" but the folder is "${folderName}"` }
  }
  if (description !== undefined && typeof description !== 'string') {
    return { ok: false, error: '`description` must be a string' }
  }
  if ((description ?? '').length > DESCRIPTION_MAX_CHARS) {
    return {
      ok: false,
      error: `\`description\` is longer than ${DESCRIPTION_MAX_CHARS} characters`,
    }
  }
  if (
    !Array.isArray(run) ||
    run.length === 0 ||
    run.length > RUN_MAX_ARGS ||
    !run.every((arg) => typeof arg === 'string' && !arg.includes('\0'))
  ) {
    return {
      ok: false,
      error: `\`run\` must be an array of 1 to ${RUN_MAX_ARGS} strings: the program, then its arguments`,
    }
  }
  if (run[0] === '' || run.some((arg: string) => arg.length > RUN_ARG_MAX_CHARS)) {
    return { ok: false, error: '`run` has an empty program or an argument that is too long' }
  }
  if (protocol !== undefined && protocol !== PROTOCOL_VERSION) {
    return { ok: false, error: `\`protocol\` must be ${PROTOCOL_VERSION}` }
  }
  const events = subset(value.events, 'events', EVENT_NAMES)
  if (!events.ok) return events
  const ui = subset(value.ui, 'ui', SLOT_NAMES)
  if (!ui.ok) return ui
  const permissions = subset(value.permissions, 'permissions', PERMISSION_NAMES)
  if (!permissions.ok) return permissions
  return {
    ok: true,
    manifest: {
      name,
      description: description ?? '',
      run: run as string[],
      events: events.list,
      ui: ui.list,
      permissions: permissions.list,
      protocol: PROTOCOL_VERSION,
    },
  }
}

/** Read and check `<dir>/mod.json`; errors name what to fix. */
export function readManifest(dir: string, folderName: string): ManifestResult {
  const file = join(dir, MANIFEST_FILE)
  let text: string
  try {
    const stat = statSync(file)
    if (!stat.isFile()) return { ok: false, error: 'is not a file' }
    if (stat.size > MANIFEST_MAX_BYTES) {
      return { ok: false, error: `is larger than ${MANIFEST_MAX_BYTES / 1024} KB` }
    }
    text = readFileSync(file, 'utf8')
  } catch (error) {
    return {
      ok: false,
      error: `cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { ok: false, error: `is not valid JSON (${(error as Error).message})` }
  }
  return validateManifest(parsed, folderName)
}
