// What the terminal UI and the `-p` printer need of the mod host. The host owns the mods'
// processes and the protocol; the screen only reads slots and drains notes once per tick.
import type { SessionEvent, SessionState } from '../session/types.js'

export type SlotName = 'status' | 'band' | 'pane'

/** What one mod currently shows in one slot, already cleaned for the terminal. */
export interface SlotContent {
  mod: string
  /** Rows to show. `status` has exactly one. */
  lines: string[]
  /** Pane title (the mod's name unless it sent one); undefined for other slots. */
  title?: string
}

export interface ScreenSlots {
  status: SlotContent[]
  band: SlotContent[]
  pane: SlotContent[]
}

/** Lines for the conversation view, produced since the last tick. */
export type HostLine =
  | { kind: 'note'; mod: string; text: string }
  | { kind: 'warning'; mod: string; text: string }

export interface TickResult {
  lines: HostLine[]
  /** True when any slot changed since the last tick: redraw. */
  slotsChanged: boolean
}

/**
 * Asked once per mod whose manifest wants permissions that were never answered. `wanted` may
 * start with `start` (PROJECT_MOD_APPROVAL): a project's mod asks once to be allowed to run at
 * all. Resolve with the names the user said yes to; the answers are remembered.
 */
export type GrantPrompt = (
  mod: { name: string; description: string; source?: 'user' | 'project'; dir?: string },
  wanted: string[],
) => Promise<string[]>

export interface ModHostPort {
  /** Find, grant and start the mods; resolves once each was sent `hello` (or failed to start). */
  start(): Promise<void>
  /** Deliver a session event to the mods subscribed to it. Never blocks. */
  emit(event: SessionEvent): void
  /**
   * Once per screen tick: refresh the state `session.state` answers with, and take the notes and
   * warnings that arrived since the last tick (only the newest 50 notes are kept if the screen
   * falls behind).
   */
  tick(state: SessionState): TickResult
  slots(): ScreenSlots
  /** Names of the running mods. */
  running(): string[]
  /** Send `bye`, allow half a second, then kill each mod's process group. */
  stop(): Promise<void>
}
