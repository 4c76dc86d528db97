// A frame is a list of rows, each a list of styled segments whose widths add up to at most the
// terminal's width. The pure layout functions build frames; the ink component only paints them.
import { cellWidth, fitWidth, padTo } from './text-width.js'

export type Tone =
  | 'plain'
  | 'user'
  | 'dim'
  | 'note'
  | 'warning'
  | 'error'
  | 'ok'
  | 'accent'
  | 'title'
  | 'cursor'
  | 'prompt'

export interface Segment {
  text: string
  tone: Tone
}

export type Row = Segment[]

export function rowWidth(row: Row): number {
  let width = 0
  for (const segment of row) width += cellWidth(segment.text)
  return width
}

export function rowText(row: Row): string {
  return row.map((segment) => segment.text).join('')
}

/** One segment, cut to `width`. */
export function line(text: string, tone: Tone, width: number): Row {
  return [{ text: fitWidth(text, width), tone }]
}

/** Cuts a row to `width` cells, segment by segment, and pads it to exactly `width`. */
export function fitRow(row: Row, width: number): Row {
  const out: Row = []
  let left = width
  for (const segment of row) {
    if (left <= 0) break
    const text = fitWidth(segment.text, left)
    if (text === '') continue
    out.push({ text, tone: segment.tone })
    left -= cellWidth(text)
  }
  if (left > 0) out.push({ text: ' '.repeat(left), tone: 'plain' })
  return out
}

export function blankRow(width: number): Row {
  return [{ text: padTo('', width), tone: 'plain' }]
}
