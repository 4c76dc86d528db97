// The Mod API v1 wire messages, both directions, word for word from the spec. The host in
// Syntic Code imports these same types, so a mod and the host cannot drift apart.

export const PROTOCOL_VERSION = 1

export const SLOT_NAMES = ['status', 'band', 'pane'] as const
export type SlotName = (typeof SLOT_NAMES)[number]

export const PERMISSION_NAMES = ['notes', 'session.read'] as const
export type PermissionName = (typeof PERMISSION_NAMES)[number]

export const METHOD_NAMES = ['note.post', 'session.state'] as const
export type MethodName = (typeof METHOD_NAMES)[number]

/** Which permission each method needs. */
export const METHOD_PERMISSIONS: Record<MethodName, PermissionName> = {
  'note.post': 'notes',
  'session.state': 'session.read',
}

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypass'] as const
export type PermissionMode = (typeof PERMISSION_MODES)[number]

export type TurnOutcome = 'answered' | 'error' | 'interrupted'

/** Each event's `data`, by event name. */
export interface EventDataMap {
  'session.start': {
    session_id: string
    model: string
    cwd: string
    permission_mode: PermissionMode
  }
  'turn.start': { turn: number }
  'turn.end': { turn: number; duration_ms: number; tool_calls: number; outcome: TurnOutcome }
  'tool.start': { turn: number; call_id: string; tool: string }
  'tool.end': {
    turn: number
    call_id: string
    tool: string
    status: 'ok' | 'error' | 'declined'
    duration_ms: number
  }
  'mode.change': { from: PermissionMode; to: PermissionMode }
  'session.end': { turns: number; reason: 'exit' | 'error' | 'signal' }
}

export type EventName = keyof EventDataMap

export const EVENT_NAMES: readonly EventName[] = [
  'session.start',
  'turn.start',
  'turn.end',
  'tool.start',
  'tool.end',
  'mode.change',
  'session.end',
]

/** The `session.state` result. */
export interface SessionStateValue {
  session_id: string
  model: string
  permission_mode: PermissionMode
  turns: number
  busy: boolean
  cwd: string
}

export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue }

// Messages Syntic Code sends.

export interface HelloMessage {
  type: 'hello'
  protocol: number
  mod: string
  events: string[]
  ui: string[]
  granted: string[]
}

export type EventMessage = {
  [K in EventName]: { type: 'event'; event: K; data: EventDataMap[K] }
}[EventName]

export type ResultMessage =
  | { type: 'result'; id: JsonValue; ok: true; value: JsonValue }
  | { type: 'result'; id: JsonValue; ok: false; error: string }

export interface ByeMessage {
  type: 'bye'
}

export type HostMessage = HelloMessage | EventMessage | ResultMessage | ByeMessage

// Messages a mod sends.

export interface DrawMessage {
  type: 'draw'
  slot: SlotName
  text?: string
  lines?: string[]
  title?: string
}

export interface SubscribeMessage {
  type: 'subscribe'
  events: string[]
}

export interface CallMessage {
  type: 'call'
  id: JsonValue
  method: string
  params?: { [key: string]: JsonValue }
}

export type ModMessage = DrawMessage | SubscribeMessage | CallMessage

/** The error strings the host answers with, word for word. */
export const ERRORS = {
  notGranted: (permission: string) => `permission \`${permission}\` not granted`,
  unknownMethod: (method: string) => `unknown method \`${method}\``,
  textRequired: '`text` is required',
  textEmpty: '`text` is empty',
  tooManyNotes: 'too many notes; try again in a minute',
} as const
