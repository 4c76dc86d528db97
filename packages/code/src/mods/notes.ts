// Notes and warnings waiting for the screen, and the per-mod note rate limit.
import type { HostLine } from './host-port.js'
import {
  NOTE_WINDOW_MS,
  NOTES_PER_WINDOW,
  NOTES_WAITING_MAX,
  WARNINGS_WAITING_MAX,
} from './limits.js'

/** At most NOTES_PER_WINDOW notes in any NOTE_WINDOW_MS: a sliding window, not a fixed one. */
export class NoteRateLimit {
  private times: number[] = []

  /** Record a note at `now` if the window has room; false when it is full. */
  take(now: number): boolean {
    while (this.times.length > 0 && now - this.times[0]! >= NOTE_WINDOW_MS) this.times.shift()
    if (this.times.length >= NOTES_PER_WINDOW) return false
    this.times.push(now)
    return true
  }
}

/**
 * Lines produced since the screen last took them, in order. When the screen falls behind, only
 * the newest NOTES_WAITING_MAX notes (from all mods) are kept; warnings are bounded separately.
 */
export class WaitingLines {
  private lines: HostLine[] = []
  private notes = 0
  private warnings = 0
  /** Notes dropped because the screen fell behind, since the start. */
  dropped = 0

  push(line: HostLine): void {
    this.lines.push(line)
    if (line.kind === 'note') this.notes++
    else this.warnings++
    if (this.notes > NOTES_WAITING_MAX) this.dropOldest('note')
    if (this.warnings > WARNINGS_WAITING_MAX) this.dropOldest('warning')
  }

  take(): HostLine[] {
    const lines = this.lines
    this.lines = []
    this.notes = 0
    this.warnings = 0
    return lines
  }

  private dropOldest(kind: HostLine['kind']): void {
    const index = this.lines.findIndex((line) => line.kind === kind)
    if (index === -1) return
    this.lines.splice(index, 1)
    if (kind === 'note') {
      this.notes--
      this.dropped++
    } else {
      this.warnings--
    }
  }
}
