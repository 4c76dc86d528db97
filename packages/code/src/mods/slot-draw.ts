// Turning a `draw` into what the screen shows, with the spec's precedence rules per slot:
// status takes `text` first and one row; band and pane take `lines` first and split `text`.
import type { SlotName } from '@syntic/mod-sdk'
import type { SlotContent } from './host-port.js'
import { BAND_MAX_ROWS, PANE_MAX_ROWS, PANE_TITLE_MAX_CHARS, STATUS_ROWS } from './limits.js'
import { isStringArray } from './protocol.js'
import { cleanOneLine, cleanRows, cleanText, cutText } from './text-clean.js'

export const SLOT_ROWS: Record<SlotName, number> = {
  status: STATUS_ROWS,
  band: BAND_MAX_ROWS,
  pane: PANE_MAX_ROWS,
}

/** A draw whose fields have the wrong types: ignored (not a bad line), and reported by `mod test`. */
export type DrawOutcome =
  | { kind: 'set'; content: SlotContent }
  | { kind: 'clear' }
  | { kind: 'malformed'; reason: string }

export function resolveDraw(
  mod: string,
  slot: SlotName,
  message: Record<string, unknown>,
): DrawOutcome {
  const { text, lines, title } = message
  if (text !== undefined && typeof text !== 'string') {
    return { kind: 'malformed', reason: '`text` must be a string' }
  }
  if (lines !== undefined && !isStringArray(lines)) {
    return { kind: 'malformed', reason: '`lines` must be an array of strings' }
  }
  if (title !== undefined && typeof title !== 'string') {
    return { kind: 'malformed', reason: '`title` must be a string' }
  }
  if (text === undefined && lines === undefined) return { kind: 'clear' }
  const max = SLOT_ROWS[slot]
  let rows: string[]
  if (slot === 'status') {
    rows = [text !== undefined ? cleanOneLine(text) : cleanOneLine(lines?.[0] ?? '')]
  } else if (lines !== undefined) {
    rows = lines.slice(0, max).map((line) => cleanOneLine(line))
  } else {
    rows = cleanRows(text ?? '').slice(0, max)
  }
  const content: SlotContent = { mod, lines: rows.map((row) => cutText(row)) }
  if (slot === 'pane') {
    const cleanTitle =
      title === undefined ? '' : cutText(cleanText(cleanOneLine(title)), PANE_TITLE_MAX_CHARS)
    content.title = cleanTitle === '' ? mod : cleanTitle
  }
  return { kind: 'set', content }
}
