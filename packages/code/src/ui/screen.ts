// Composes the whole frame from what the session shows and what the user is doing. Pure: the same
// view always gives the same rows, which is what the screen tick compares to skip repaints.
import type { ScreenSlots } from '../mods/host-port.js'
import type { PermissionMode, TranscriptEntry } from '../session/types.js'
import {
  bandRows,
  bottomPaneMaxRows,
  panePlacement,
  paneRows,
  sidePaneWidth,
  statusRow,
} from './areas.js'
import { conversationRows } from './conversation.js'
import type { LineEditor } from './line-editor.js'
import { type Question, questionRows } from './prompts.js'
import { blankRow, fitRow, type Row, type Segment } from './rows.js'
import { PANE_MAX_ROWS } from './screen-limits.js'
import { cellWidth, takeCells } from './text-width.js'

export interface ScreenView {
  columns: number
  rows: number
  transcript: readonly TranscriptEntry[]
  slots: ScreenSlots
  mode: PermissionMode
  busy: boolean
  /** Spinner frame, advanced by the tick while busy. */
  spinner: number
  editor: LineEditor
  /** The question being asked, if any: it takes the input line's place. */
  question: Question | null
  paneTab: number
  /** Rows scrolled up from the newest. */
  scroll: number
  /** One dim line above the input (e.g. `press Ctrl+C again to exit`); empty for none. */
  hint: string
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const SEPARATOR = '│'
const RULE = '─'

export function composeScreen(view: ScreenView): Row[] {
  const width = Math.max(1, view.columns)
  const height = Math.max(1, view.rows)
  const bottom: Row[] = []
  if (view.hint !== '') bottom.push(fitRow([{ text: view.hint, tone: 'dim' }], width))
  if (view.question !== null) bottom.push(...questionRows(view.question, width))
  else bottom.push(inputRow(view, width))
  bottom.push(statusRow(view.mode, view.slots.status, width))

  const band = bandRows(view.slots.band, width)
  const placement = panePlacement(width)
  const pane =
    placement === 'bottom'
      ? paneRows(view.slots.pane, view.paneTab, width, bottomPaneMaxRows(height))
      : []
  const rule = fitRow([{ text: RULE.repeat(width), tone: 'dim' }], width)
  const conversationHeight = Math.max(0, height - bottom.length - band.length - pane.length - 1)

  const conversation =
    placement === 'right' && view.slots.pane.length > 0
      ? besidePane(view, width, conversationHeight)
      : padConversation(
          conversationRows(view.transcript, width, conversationHeight, view.scroll),
          width,
          conversationHeight,
        )
  const frame = [...conversation, rule, ...pane, ...band, ...bottom].slice(-height)
  while (frame.length < height) frame.unshift(blankRow(width))
  return frame
}

/** The conversation on the left and the pane on the right, split by a vertical line. */
function besidePane(view: ScreenView, width: number, height: number): Row[] {
  const paneWidth = sidePaneWidth(width)
  const leftWidth = Math.max(1, width - paneWidth - 1)
  const left = padConversation(
    conversationRows(view.transcript, leftWidth, height, view.scroll),
    leftWidth,
    height,
  )
  const right = paneRows(
    view.slots.pane,
    view.paneTab,
    paneWidth,
    Math.min(height, PANE_MAX_ROWS + 1),
  )
  return left.map((row, i) => [
    ...row,
    { text: SEPARATOR, tone: 'dim' },
    ...(right[i] ?? blankRow(paneWidth)),
  ])
}

/** Conversation rows padded to the width, and blank rows above them to fill the height. */
function padConversation(rows: Row[], width: number, height: number): Row[] {
  const padded = rows.map((row) => fitRow(row, width))
  while (padded.length < height) padded.unshift(blankRow(width))
  return padded
}

/** `› text` with the cursor shown; long lines scroll so the cursor stays in view. */
function inputRow(view: ScreenView, width: number): Row {
  const prefix = view.busy ? `${SPINNER[view.spinner % SPINNER.length]} working › ` : '› '
  const room = Math.max(1, width - cellWidth(prefix) - 1)
  const { chars, cursor } = view.editor
  let start = cursor
  let used = 0
  while (start > 0) {
    const w = cellWidth(chars[start - 1] ?? '')
    if (used + w > room - 1) break
    used += w
    start--
  }
  const before = chars.slice(start, cursor).join('')
  const under = chars[cursor] ?? ' '
  const after = takeCells(
    chars.slice(cursor + 1).join(''),
    Math.max(0, room - cellWidth(before) - 1),
  )
  const row: Segment[] = [
    { text: prefix, tone: view.busy ? 'accent' : 'user' },
    { text: before, tone: 'plain' },
    { text: under, tone: 'cursor' },
    { text: after, tone: 'plain' },
  ]
  return fitRow(row, width)
}
