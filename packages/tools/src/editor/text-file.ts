import { isUtf8 } from 'node:buffer'
import { ToolError } from '../result.js'

/** How far into a file a NUL byte marks it as binary (the heuristic git uses). */
export const BINARY_PROBE_BYTES = 8192

const LF = 0x0a
const CR = 0x0d
const BOM = Buffer.from([0xef, 0xbb, 0xbf])

/** What the editor keeps about a text file so that edits leave its conventions alone. */
export interface TextInfo {
  /** Starts with a UTF-8 byte order mark. */
  bom: boolean
  /** Every line ending is CRLF (and there is at least one), so the model may write plain LF. */
  crlf: boolean
  /** The ending new lines get: CRLF for CRLF files, else whichever ending the file uses most. */
  eol: '\n' | '\r\n'
  /** Whether the last byte is a newline; edits keep this as it was. */
  finalNewline: boolean
}

export function hasNul(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)
}

export function binaryError(display: string): ToolError {
  return new ToolError(`${display} is a binary file; the editor only handles UTF-8 text`)
}

export function notUtf8Error(display: string, line?: number): ToolError {
  const where = line === undefined ? '' : ` (line ${line})`
  return new ToolError(
    `${display} is not valid UTF-8 text${where}; the editor only handles UTF-8 text`,
  )
}

/** Checks that a whole file is editable text and describes its line conventions. */
export function inspectText(bytes: Buffer, display: string): TextInfo {
  if (hasNul(bytes)) throw binaryError(display)
  if (!isUtf8(bytes)) throw notUtf8Error(display)
  const finalNewline = bytes.length > 0 && bytes[bytes.length - 1] === LF
  const bom = startsWithBom(bytes)
  // Most files have no CR at all; only the others need the per-newline count.
  if (!bytes.includes(CR)) return { bom, crlf: false, eol: '\n', finalNewline }
  let lf = 0
  let crlf = 0
  for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) {
    lf++
    if (i > 0 && bytes[i - 1] === CR) crlf++
  }
  const allCrlf = lf > 0 && crlf === lf
  return { bom, crlf: allCrlf, eol: allCrlf || crlf > lf - crlf ? '\r\n' : '\n', finalNewline }
}

/** Number of lines in a checked file; a byte order mark alone is no line. */
export function linesOf(bytes: Buffer, info: TextInfo): number {
  if (bytes.length === bomLength(info)) return 0
  return countLines(bytes)
}

export function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
}

export function bomLength(info: TextInfo): number {
  return info.bom ? BOM.length : 0
}

/**
 * The bytes a piece of model text stands for in this file. A model writes LF; in a CRLF file that
 * is converted so the match and the write both use the file's own endings.
 */
export function modelTextToBytes(text: string, info: TextInfo): Buffer {
  if (!info.crlf) return Buffer.from(text)
  return Buffer.from(text.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n'))
}

/** Text to add as new lines: every ending becomes the file's, whatever the model wrote. */
export function linesToBytes(text: string, info: TextInfo): Buffer {
  const lf = text.replaceAll('\r\n', '\n')
  return Buffer.from(info.eol === '\n' ? lf : lf.replaceAll('\n', '\r\n'))
}

/** Number of lines in a byte string: newlines, plus one for an unterminated last line. */
export function countLines(bytes: Buffer): number {
  const n = countNewlines(bytes, 0, bytes.length)
  return n + (bytes.length > 0 && bytes[bytes.length - 1] !== LF ? 1 : 0)
}

/** Byte offset where 1-based line `line` starts; the end of the buffer when there are fewer. */
export function offsetOfLine(bytes: Buffer, line: number): number {
  let offset = 0
  for (let n = 1; n < line; n++) {
    const nl = bytes.indexOf(LF, offset)
    if (nl === -1) return bytes.length
    offset = nl + 1
  }
  return offset
}

/** Number of newlines in bytes[from, to). */
export function countNewlines(bytes: Buffer, from: number, to: number): number {
  let n = 0
  for (let i = bytes.indexOf(LF, from); i !== -1 && i < to; i = bytes.indexOf(LF, i + 1)) n++
  return n
}

/**
 * Decodes one line for display: drops the CR of a CRLF ending and, on line 1, a byte order mark.
 * Returns null for bytes that are not UTF-8.
 */
export function displayLine(bytes: Buffer, terminated: boolean, first: boolean): string | null {
  let view = bytes
  if (first && startsWithBom(view)) view = view.subarray(BOM.length)
  if (terminated && view.length > 0 && view[view.length - 1] === CR) {
    view = view.subarray(0, -1)
  }
  if (!isUtf8(view)) return null
  return view.toString('utf8')
}

/** Cuts bytes back to the last whole UTF-8 character, for a line shown only in part. */
export function trimPartialChar(bytes: Buffer): Buffer {
  let i = bytes.length - 1
  // Walk back over at most three continuation bytes to the lead byte of the last character.
  while (i >= 0 && bytes.length - i <= 4 && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--
  if (i < 0) return bytes
  const lead = bytes[i] ?? 0
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return bytes.length - i >= need ? bytes : bytes.subarray(0, i)
}

/** Keeps a missing or present final newline as it was before the edit. */
export function keepFinalNewline(bytes: Buffer, info: TextInfo): Buffer {
  const content = bytes.length - bomLength(info)
  if (content <= 0) return bytes
  const ends = bytes[bytes.length - 1] === LF
  if (info.finalNewline && !ends) return Buffer.concat([bytes, Buffer.from(info.eol)])
  if (!info.finalNewline && ends) {
    const cut = bytes.length >= 2 && bytes[bytes.length - 2] === CR ? 2 : 1
    return bytes.subarray(0, bytes.length - cut)
  }
  return bytes
}
