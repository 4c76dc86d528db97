// The conversation view: the transcript as wrapped rows, newest at the bottom.
import type { TranscriptEntry } from '../session/types.js'
import type { Row, Tone } from './rows.js'
import { wrapText } from './text-width.js'

const TOOL_MARK: Record<Extract<TranscriptEntry, { kind: 'tool' }>['status'], string> = {
  running: '…',
  ok: '✓',
  error: '✗',
  declined: '⊘',
}

const TOOL_TONE: Record<Extract<TranscriptEntry, { kind: 'tool' }>['status'], Tone> = {
  running: 'dim',
  ok: 'ok',
  error: 'error',
  declined: 'warning',
}

/**
 * The rows one entry takes at `width`; a tool call is always exactly one row. With `lastRows`, a
 * long text is wrapped from near its end only, enough for that many rows at the bottom.
 */
export function entryRows(entry: TranscriptEntry, width: number, lastRows?: number): Row[] {
  const tail = (text: string) => (lastRows === undefined ? text : textTail(text, width, lastRows))
  switch (entry.kind) {
    case 'user':
      return prefixed('> ', tail(entry.text), 'user', width)
    case 'assistant':
      return prefixed('', tail(entry.text), 'plain', width)
    case 'tool': {
      const suffix = entry.status === 'declined' ? ' (declined)' : ''
      return prefixed(
        `${TOOL_MARK[entry.status]} `,
        `${entry.summary}${suffix}`,
        TOOL_TONE[entry.status],
        width,
        true,
      )
    }
    case 'note':
      return prefixed(`[mod ${entry.mod}] `, tail(entry.text), 'note', width)
    case 'warning':
      return prefixed('warning: ', tail(entry.text), 'warning', width)
    case 'error':
      return prefixed('error: ', tail(entry.text), 'error', width)
  }
}

/**
 * The end of `text` that surely fills `rows` rows: a row holds at most `width` characters plus the
 * spaces dropped at its break, so twice that per row is enough but for long runs of spaces. The cut
 * moves to a paragraph or word start, so the first row shown is a whole one.
 */
function textTail(text: string, width: number, rows: number): string {
  const budget = (rows + 1) * Math.max(1, width) * 2
  if (text.length <= budget) return text
  let cut = text.length - budget
  const newline = text.indexOf('\n', cut)
  const space = text.indexOf(' ', cut)
  if (newline !== -1 && newline - cut < budget / 2) cut = newline + 1
  else if (space !== -1 && space - cut < width) cut = space + 1
  return text.slice(cut)
}

function prefixed(prefix: string, text: string, tone: Tone, width: number, oneRow = false): Row[] {
  const wrapped = wrapText(`${prefix}${text}`, width)
  const rows = oneRow ? wrapped.slice(0, 1) : wrapped
  return rows.map((row) => [{ text: row, tone }])
}

/**
 * The `height` rows that end `scroll` rows above the newest one. Only the entries that reach the
 * view are wrapped, so a long conversation costs what the screen shows, not its length. A blank
 * row separates entries of different speakers.
 */
export function conversationRows(
  entries: readonly TranscriptEntry[],
  width: number,
  height: number,
  scroll = 0,
): Row[] {
  if (height <= 0 || width <= 0) return []
  const needed = height + scroll
  const rows: Row[] = []
  for (let i = entries.length - 1; i >= 0 && rows.length < needed; i--) {
    const entry = entries[i]!
    const block = entryRows(entry, width, needed - rows.length)
    const previous = entries[i - 1]
    if (previous !== undefined && startsBlock(previous, entry)) block.unshift([])
    rows.unshift(...block)
  }
  const end = Math.max(Math.min(rows.length, height), rows.length - scroll)
  return rows.slice(Math.max(0, end - height), end)
}

function startsBlock(previous: TranscriptEntry, entry: TranscriptEntry): boolean {
  return entry.kind === 'user' || previous.kind === 'user'
}
