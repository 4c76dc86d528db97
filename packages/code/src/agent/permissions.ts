// The permission modes: what runs at once, what needs the user's yes, what is declined. Edits are
// the editor's writing commands; destructive commands are what the shell's classifier flags (the
// shell asks through its `confirm` hook). Memory is the agent's own notebook outside the project,
// so it is never asked about.
import type { PermissionMode, PermissionRequest } from '../session/types.js'
import { readOnlyVerdict } from './read-only.js'
import { EDITOR, SHELL } from './tool-box.js'

export type Gate =
  | { action: 'run' }
  | { action: 'ask'; request: Omit<PermissionRequest, 'call_id'> }
  | { action: 'decline'; result: string }

const EDIT_COMMANDS = new Set(['create', 'replace', 'insert', 'undo'])

export const EDIT_DECLINED = 'The user declined this edit. Nothing was changed.'

export const PLAN_EDIT_DECLINED =
  'Declined: the session is in plan mode (read-only), so files cannot be changed and nothing was changed. Describe the change in your plan instead; the user can switch modes to let you make it.'

export function planCommandDeclined(why: string): string {
  return `Declined: the session is in plan mode (read-only) and this command may change things (${why}). Nothing was run. Only read-only commands run in plan mode; use the editor's view command to read files.`
}

function field(input: unknown, name: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const value = (input as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : undefined
}

/**
 * Decides one tool call before it runs. Input the tool would reject anyway runs, so the model gets
 * the tool's own error text.
 */
export function gateCall(
  mode: PermissionMode,
  tool: string,
  input: unknown,
  workspace: string,
): Gate {
  if (tool === EDITOR) {
    const command = field(input, 'command')
    if (command === undefined || !EDIT_COMMANDS.has(command)) return { action: 'run' }
    if (mode === 'plan') return { action: 'decline', result: PLAN_EDIT_DECLINED }
    if (mode !== 'default') return { action: 'run' }
    const path = field(input, 'path') ?? '?'
    return { action: 'ask', request: { tool, summary: `${command} ${path}`, reason: 'edit' } }
  }
  if (tool === SHELL && mode === 'plan') {
    const cmd = field(input, 'cmd')
    if (field(input, 'command') !== 'run' || cmd === undefined) return { action: 'run' }
    const verdict = readOnlyVerdict(cmd, workspace)
    if (!verdict.readOnly) return { action: 'decline', result: planCommandDeclined(verdict.why) }
  }
  return { action: 'run' }
}

/** What the shell's destructive-command gate does in each mode without asking. */
export function destructiveDefault(mode: PermissionMode): 'allow' | 'deny' | 'ask' {
  if (mode === 'bypass') return 'allow'
  if (mode === 'plan') return 'deny'
  return 'ask'
}
