// Terminal cell widths. Every row the screen draws goes through here, so nothing wraps or spills
// into a neighbouring area whatever a mod or the model sends. Widths are summed per code point:
// a joined emoji sequence then counts wider than it shows, which cuts early but never overflows.
import stringWidth from 'string-width'

const ELLIPSIS = '…'
// Anything that moves the cursor or changes the terminal's state; mod text arrives cleaned, the
// model's text does not.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what must go
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
// Printable ASCII is one cell a character: the common case skips the per-character lookup.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/
const CACHE_MAX = 4096
const charWidths = new Map<string, number>()

/** One row's worth of text: tabs become spaces, newlines and other control characters go. */
export function singleLine(text: string): string {
  return text
    .replaceAll('\t', '  ')
    .replace(/\r?\n|\r/g, ' ')
    .replace(CONTROL, '')
}

function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0
  if (code >= 0x20 && code < 0x7f) return 1
  let width = charWidths.get(char)
  if (width === undefined) {
    width = stringWidth(char)
    if (charWidths.size < CACHE_MAX) charWidths.set(char, width)
  }
  return width
}

export function cellWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length
  let width = 0
  for (const char of text) width += charWidth(char)
  return width
}

/** Cuts `text` to at most `width` cells, ending in `…` when something was cut. */
export function fitWidth(text: string, width: number): string {
  if (width <= 0) return ''
  const clean = singleLine(text)
  const head = takeCells(clean, width)
  if (head.length === clean.length) return clean
  return `${takeCells(head, width - 1)}${ELLIPSIS}`
}

/** Cuts to `width` cells and pads with spaces to exactly `width`. */
export function padTo(text: string, width: number): string {
  const fitted = fitWidth(text, width)
  return fitted + ' '.repeat(Math.max(0, width - cellWidth(fitted)))
}

/** The longest prefix of `text` that fits in `width` cells. */
export function takeCells(text: string, width: number): string {
  if (PRINTABLE_ASCII.test(text)) return text.slice(0, Math.max(0, width))
  let used = 0
  let end = 0
  for (const char of text) {
    const w = charWidth(char)
    if (used + w > width) break
    used += w
    end += char.length
  }
  return text.slice(0, end)
}

/**
 * Wraps text into rows of at most `width` cells: paragraphs at newlines, then at the last space
 * that fits, else hard at the width. One pass: a long reply costs its length, not its square.
 */
export function wrapText(text: string, width: number): string[] {
  if (width <= 0) return []
  const rows: string[] = []
  for (const paragraph of text.split('\n')) {
    const chars = Array.from(singleLine(paragraph))
    if (chars.length === 0) rows.push('')
    let start = 0
    while (start < chars.length) {
      let used = 0
      let end = start
      let lastSpace = -1
      while (end < chars.length) {
        const w = charWidth(chars[end]!)
        if (used + w > width) break
        used += w
        if (chars[end] === ' ') lastSpace = end
        end++
      }
      if (end === start) {
        // A double-width character in a one-cell area cannot be shown: it is dropped.
        start++
        continue
      }
      if (end < chars.length && chars[end] !== ' ' && lastSpace > start) end = lastSpace
      rows.push(chars.slice(start, end).join('').trimEnd())
      start = end
      while (chars[start] === ' ') start++
    }
  }
  return rows
}
