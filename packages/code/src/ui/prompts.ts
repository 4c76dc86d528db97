// The two questions the screen asks: may this tool call run, and which permissions a mod gets.
import type { GrantPrompt } from '../mods/host-port.js'
import type { PermissionAnswer, PermissionRequest } from '../session/types.js'
import { fitRow, type Row } from './rows.js'

export interface PermissionQuestion {
  kind: 'permission'
  request: PermissionRequest
  answer: (answer: PermissionAnswer) => void
}

export interface GrantQuestion {
  kind: 'grant'
  mod: Parameters<GrantPrompt>[0]
  wanted: string[]
  checked: boolean[]
  answer: (granted: string[]) => void
}

export type Question = PermissionQuestion | GrantQuestion

const REASON_TEXT: Record<PermissionRequest['reason'], string> = {
  edit: 'it changes files',
  destructive: 'the command looks destructive',
}

/** What each permission a mod may want lets it do, so the user knows what they grant. */
const PERMISSION_MEANING: Record<string, string> = {
  start: 'run this mod, which came with the project',
  notes: 'post lines in the conversation',
  'session.read': 'read the session summary (model, mode, turns, folder)',
}

/** Toggles at most this many permissions by digit; longer lists are granted all or none. */
const TOGGLE_KEYS = 9

export function questionRows(question: Question, width: number): Row[] {
  if (question.kind === 'permission') {
    const { tool, summary, reason } = question.request
    const rows: Row[] = [
      [{ text: `Allow ${tool}? (${REASON_TEXT[reason]})`, tone: 'prompt' }],
      [{ text: `  ${summary}`, tone: 'plain' }],
      [{ text: '  y: allow   n: deny   Esc: deny', tone: 'dim' }],
    ]
    return rows.map((row) => fitRow(row, width))
  }
  const rows: Row[] = [[{ text: `Mod ${question.mod.name} asks for permissions`, tone: 'prompt' }]]
  const { description, source, dir } = question.mod
  if (description !== '') rows.push([{ text: `  ${description}`, tone: 'dim' }])
  if (dir !== undefined) {
    const origin = source === 'project' ? 'came with this project, in' : 'in'
    rows.push([{ text: `  ${origin} ${dir}`, tone: 'dim' }])
  }
  question.wanted.forEach((permission, index) => {
    const box = question.checked[index] === true ? '[x]' : '[ ]'
    const key = index < TOGGLE_KEYS ? `${index + 1}` : ' '
    const meaning = PERMISSION_MEANING[permission]
    rows.push([
      { text: `  ${box} ${key} ${permission}`, tone: 'plain' },
      { text: meaning === undefined ? '' : `  ${meaning}`, tone: 'dim' },
    ])
  })
  rows.push([
    { text: '  a: grant all   n: none   1-9: toggle   Enter: grant checked', tone: 'dim' },
  ])
  return rows.map((row) => fitRow(row, width))
}

/** What a key does to a grant question: toggles a box, or answers it (and it is then done). */
export function grantKey(
  question: GrantQuestion,
  input: string,
  enter: boolean,
  escaped: boolean,
): { question: GrantQuestion; granted?: string[] } {
  if (escaped || input === 'n') return { question, granted: [] }
  if (input === 'a') return { question, granted: [...question.wanted] }
  if (enter) return { question, granted: question.wanted.filter((_, i) => question.checked[i]) }
  const digit = Number.parseInt(input, 10)
  if (input.length === 1 && digit >= 1 && digit <= Math.min(TOGGLE_KEYS, question.wanted.length)) {
    const checked = question.checked.map((value, i) => (i === digit - 1 ? !value : value))
    return { question: { ...question, checked } }
  }
  return { question }
}

/** `y` allows; `n` and Esc deny; any other key leaves the question open. */
export function permissionKey(input: string, escaped: boolean): PermissionAnswer | null {
  if (input === 'y' || input === 'Y') return 'allow'
  if (input === 'n' || input === 'N' || escaped) return 'deny'
  return null
}
