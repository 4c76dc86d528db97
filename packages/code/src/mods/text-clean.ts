// Text from a mod is shown in the user's terminal, so nothing in it may move the cursor, change
// colours, reorder the line (direction overrides) or hide what follows.
import { ROW_MAX_CHARS } from './limits.js'

const ESC = '\u001b'
const BEL = '\u0007'
const ANSI_SEQUENCE = new RegExp(
  `${ESC}(?:\\[[0-?]*[ -/]*[@-~]|\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)?|[@-Z\\\\-_])`,
  'g',
)
// C0 and C1 controls (tab is handled first), DEL, and the bidirectional marks and overrides.
const UNSAFE = new RegExp(
  `[${String.fromCharCode(0)}-${String.fromCharCode(8)}${String.fromCharCode(10)}-${String.fromCharCode(0x1f)}${String.fromCharCode(0x7f)}-${String.fromCharCode(0x9f)}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]`,
  'g',
)
const TAB = /\t/g
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** Clean one row of text for the terminal: no escape sequences, controls or direction overrides. */
export function cleanText(text: string): string {
  return text
    .replace(LONE_SURROGATE, '\ufffd')
    .replace(ANSI_SEQUENCE, '')
    .replace(TAB, '  ')
    .replace(UNSAFE, '')
}

/** Cut to at most `max` characters (code points, so a surrogate pair is never split). */
export function cutText(text: string, max: number = ROW_MAX_CHARS): string {
  if (text.length <= max) return text
  return Array.from(text).slice(0, max).join('')
}

/** Newlines (any kind) become spaces, then the text is cleaned: for one-row contexts. */
export function cleanOneLine(text: string): string {
  return cleanText(text.replace(/\r\n|\r|\n/g, ' '))
}

/** Split on newlines and clean each row. */
export function cleanRows(text: string): string[] {
  return text.split(/\r\n|\r|\n/).map(cleanText)
}
