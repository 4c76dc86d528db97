// What the user answered when a mod asked for permissions, remembered per mod name and folder in
// `~/.syntic/mod-grants.json` (mode 0600). Only permissions never answered are asked again.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { PERMISSION_NAMES, type PermissionName } from '@syntic/mod-sdk'
import type { FoundMod } from './discover.js'
import type { GrantPrompt } from './host-port.js'
import { cleanOneLine, cutText } from './text-clean.js'

/**
 * Asked, alongside the permissions, the first time a project's mod would run: a cloned
 * repository can carry a mod, and starting a program from it needs the user's yes.
 */
export const PROJECT_MOD_APPROVAL = 'start'

export interface GrantEntry {
  mod: string
  dir: string
  /** Everything the user was asked (permissions and `start`), whatever the answer. */
  answered: string[]
  granted: string[]
}

interface GrantsFile {
  version: 1
  grants: GrantEntry[]
}

export function grantsFile(homeDir: string): string {
  return join(homeDir, '.syntic', 'mod-grants.json')
}

function isEntry(value: unknown): value is GrantEntry {
  if (typeof value !== 'object' || value === null) return false
  const entry = value as Record<string, unknown>
  const strings = (list: unknown) =>
    Array.isArray(list) && list.every((item) => typeof item === 'string')
  return (
    typeof entry.mod === 'string' &&
    typeof entry.dir === 'string' &&
    strings(entry.answered) &&
    strings(entry.granted)
  )
}

export class GrantStore {
  private entries: GrantEntry[] = []
  /** Set when the file existed but could not be used; the host shows it as a warning. */
  readonly problem: string | undefined

  constructor(private readonly file: string) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      return
    }
    try {
      const parsed = JSON.parse(text) as Partial<GrantsFile>
      if (!Array.isArray(parsed.grants)) throw new Error('no `grants` list')
      this.entries = parsed.grants.filter(isEntry)
    } catch {
      this.problem = `${file} is not valid; every mod will ask for its permissions again`
    }
  }

  find(mod: string, dir: string): GrantEntry | undefined {
    return this.entries.find((entry) => entry.mod === mod && entry.dir === dir)
  }

  record(mod: string, dir: string, asked: string[], granted: string[]): GrantEntry {
    let entry = this.find(mod, dir)
    if (!entry) {
      entry = { mod, dir, answered: [], granted: [] }
      this.entries.push(entry)
    }
    for (const name of asked) if (!entry.answered.includes(name)) entry.answered.push(name)
    for (const name of granted) if (!entry.granted.includes(name)) entry.granted.push(name)
    this.save()
    return entry
  }

  private save(): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 })
    const body: GrantsFile = { version: 1, grants: this.entries }
    const temp = `${this.file}.${process.pid}.tmp`
    writeFileSync(temp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 })
    chmodSync(temp, 0o600)
    renameSync(temp, this.file)
  }
}

export type GrantDecision =
  | { start: true; granted: PermissionName[] }
  | { start: false; reason: string }

/** Ask what was never answered, remember the answer, and say whether and how the mod starts. */
export async function decideGrants(
  mod: FoundMod,
  store: GrantStore,
  prompt: GrantPrompt,
): Promise<GrantDecision> {
  const { name, permissions, description } = mod.manifest
  const known = store.find(name, mod.dir)
  const answered = known?.answered ?? []
  const wanted: string[] = []
  if (mod.source === 'project' && !answered.includes(PROJECT_MOD_APPROVAL)) {
    wanted.push(PROJECT_MOD_APPROVAL)
  }
  for (const permission of permissions) if (!answered.includes(permission)) wanted.push(permission)
  let entry = known
  if (wanted.length > 0) {
    let answer: string[]
    try {
      answer = await prompt(
        { name, description: cutText(cleanOneLine(description)), source: mod.source, dir: mod.dir },
        wanted,
      )
    } catch (error) {
      return { start: false, reason: `the permission prompt failed (${(error as Error).message})` }
    }
    const accepted = Array.isArray(answer) ? wanted.filter((item) => answer.includes(item)) : []
    entry = store.record(name, mod.dir, wanted, accepted)
  }
  const granted = entry?.granted ?? []
  if (mod.source === 'project' && !granted.includes(PROJECT_MOD_APPROVAL)) {
    return {
      start: false,
      reason: `you did not approve this project mod (remove its entry from the grants file to be asked again)`,
    }
  }
  return {
    start: true,
    granted: PERMISSION_NAMES.filter((p) => permissions.includes(p) && granted.includes(p)),
  }
}
