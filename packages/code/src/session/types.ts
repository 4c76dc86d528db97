// What the agent, the mod host and the terminal UI share. The agent produces session events and
// transcript entries; the mod host turns events into Mod API `event` messages; the UI (or the
// `-p` printer) shows the transcript, the mods' slots and notes.

import type { EventDataMap, EventName, SessionStateValue } from '@syntic/mod-sdk'

// The Mod API's shapes are the SDK's: what the host sends a mod is what the agent produced.
export {
  EVENT_NAMES as SESSION_EVENT_NAMES,
  PERMISSION_MODES,
  type PermissionMode,
  type TurnOutcome,
} from '@syntic/mod-sdk'

/** The six fields of the Mod API's `session.state` result, word for word. */
export type SessionState = SessionStateValue

export type SessionEventName = EventName

/**
 * Session events, named and shaped as mods receive them (`{"type":"event","event":...,"data":...}`).
 * They say what happened, never what was said: a mod cannot read the conversation or tool input.
 */
export type SessionEvent = { [K in EventName]: { event: K; data: EventDataMap[K] } }[EventName]

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
