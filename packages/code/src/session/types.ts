// What the agent, the mod host and the terminal UI share. The agent produces session events and
// transcript entries; the mod host turns events into Mod API `event` messages; the UI (or the
// `-p` printer) shows the transcript, the mods' slots and notes.

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypass'] as const
export type PermissionMode = (typeof PERMISSION_MODES)[number]

/** The six fields of the Mod API's `session.state` result, word for word. */
export interface SessionState {
  session_id: string
  model: string
  permission_mode: PermissionMode
  turns: number
  busy: boolean
  cwd: string
}

/** How a turn ended: the model answered, a request failed, or the user interrupted it. */
export type TurnOutcome = 'answered' | 'error' | 'interrupted'

/**
 * Session events, named and shaped as mods receive them (`{"type":"event","event":...,"data":...}`).
 * They say what happened, never what was said: a mod cannot read the conversation or tool input.
 */
export type SessionEvent =
  | {
      event: 'session.start'
      data: { session_id: string; model: string; cwd: string; permission_mode: PermissionMode }
    }
  | { event: 'turn.start'; data: { turn: number } }
  | {
      event: 'turn.end'
      data: { turn: number; duration_ms: number; tool_calls: number; outcome: TurnOutcome }
    }
  | { event: 'tool.start'; data: { turn: number; call_id: string; tool: string } }
  | {
      event: 'tool.end'
      data: {
        turn: number
        call_id: string
        tool: string
        /** `declined` when the user (or `plan` mode) refused the call. */
        status: 'ok' | 'error' | 'declined'
        duration_ms: number
      }
    }
  | { event: 'mode.change'; data: { from: PermissionMode; to: PermissionMode } }
  | { event: 'session.end'; data: { turns: number; reason: 'exit' | 'error' | 'signal' } }

export type SessionEventName = SessionEvent['event']

export const SESSION_EVENT_NAMES: readonly SessionEventName[] = [
  'session.start',
  'turn.start',
  'turn.end',
  'tool.start',
  'tool.end',
  'mode.change',
  'session.end',
]

/** One line of the conversation view, in order. Mod notes never reach the model. */
export type TranscriptEntry =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string }
  | {
      kind: 'tool'
      call_id: string
      tool: string
      /** One line for the screen, e.g. `shell: npm test` or `editor: replace src/a.ts`. */
      summary: string
      status: 'running' | 'ok' | 'error' | 'declined'
      /** The result's first lines once finished. */
      output?: string
    }
  | { kind: 'note'; mod: string; text: string }
  | { kind: 'warning'; text: string }
  | { kind: 'error'; text: string }

/** A tool call that needs the user's yes before it runs (edits and destructive commands). */
export interface PermissionRequest {
  call_id: string
  tool: string
  /** What will happen, one line: `edit src/a.ts`, `run rm -rf build`. */
  summary: string
  /** Why it needs asking: it changes files, or the command looks destructive. */
  reason: 'edit' | 'destructive'
  /** For destructive commands, the classifier's reasons: `recursive delete: rm -rf build`. */
  detail?: string
}

export type PermissionAnswer = 'allow' | 'deny'
