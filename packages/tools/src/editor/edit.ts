import { ToolError } from '../result.js'
import { fitLines, numbered, plural } from './format.js'
import {
  bomLength,
  countLines,
  countNewlines,
  displayLine,
  keepFinalNewline,
  linesOf,
  linesToBytes,
  modelTextToBytes,
  offsetOfLine,
  startsWithBom,
  type TextInfo,
} from './text-file.js'

/** The file after an edit, and where the new text sits in it (1-based lines). */
export interface Change {
  bytes: Buffer
  /** Byte offset of the new text in `bytes`. */
  at: number
  firstLine: number
  /** Lines the new text covers; 0 when the edit only removed text. */
  lineCount: number
}

const LF = 0x0a
/** Context lines shown before and after an edited region. */
const CONTEXT = 3
/** Longest snippet, in lines; a bigger edit is shown in part, with the range to view the rest. */
const SNIPPET_LINES = 40
/** Longest line shown in a snippet; minified code would otherwise fill the output. */
const SNIPPET_LINE_CHARS = 500

/**
 * Replaces the one occurrence of `oldText`. Works on bytes: both sides are valid UTF-8, where a
 * byte match is a character match, and it saves decoding and re-encoding the whole file.
 */
export function replaceUnique(
  bytes: Buffer,
  info: TextInfo,
  oldText: string,
  newText: string,
  display: string,
): Change {
  if (oldText === '') {
    throw new ToolError(
      'old_text is empty; pass the exact text to replace, with enough surrounding lines to be unique (use insert to add lines)',
    )
  }
  const needle = modelTextToBytes(oldText, info)
  const [count, at] = occurrences(bytes, needle)
  if (count === 0) throw notFound(bytes, info, oldText, display)
  if (count > 1) {
    throw new ToolError(
      `old_text found ${count} times in ${display}; add surrounding lines to make it unique`,
    )
  }
  const replacement = modelTextToBytes(newText, info)
  const merged = Buffer.concat([
    bytes.subarray(0, at),
    replacement,
    bytes.subarray(at + needle.length),
  ])
  return {
    bytes: keepFinalNewline(merged, info),
    at,
    firstLine: 1 + countNewlines(bytes, 0, at),
    lineCount: countLines(replacement),
  }
}

/** Inserts `text` as whole lines after line `afterLine` (0: the top). */
export function insertAfter(
  bytes: Buffer,
  info: TextInfo,
  afterLine: number,
  text: string,
  display: string,
): Change {
  const lines = linesOf(bytes, info)
  if (afterLine < 0 || afterLine > lines) {
    throw new ToolError(
      `after_line ${afterLine} is out of range; ${display} has ${plural(lines, 'line')}, so use 0 (the top) to ${lines} (the end)`,
    )
  }
  if (text === '') throw new ToolError('text is empty; to insert a blank line, pass "\\n"')
  const eol = Buffer.from(info.eol)
  let block = linesToBytes(text, info)
  // "x\n" and "x" both mean one line: the ending is the file's business.
  if (block.subarray(-eol.length).equals(eol)) block = block.subarray(0, -eol.length)
  const lineCount = countNewlines(block, 0, block.length) + 1

  let result: Buffer
  let at: number
  if (lines === 0) {
    // An empty file takes the usual final newline.
    at = bytes.length
    result = Buffer.concat([bytes, block, eol])
  } else if (afterLine === lines && !info.finalNewline) {
    // Appending to a file without a final newline: end the old last line, keep none after ours.
    at = bytes.length + eol.length
    result = Buffer.concat([bytes, eol, block])
  } else {
    at = afterLine === 0 ? bomLength(info) : offsetOfLine(bytes, afterLine + 1)
    result = Buffer.concat([bytes.subarray(0, at), block, eol, bytes.subarray(at)])
  }
  return { bytes: result, at, firstLine: afterLine + 1, lineCount }
}

/** The edited region with a few lines around it, in the view format. */
export function snippet(change: Change, maxChars: number): { header: string; body: string } {
  const { bytes, firstLine } = change
  if (bytes.length <= (startsWithBom(bytes) ? 3 : 0)) {
    return { header: 'The file is now empty.', body: '' }
  }
  const lastLine = firstLine + Math.max(change.lineCount, 1) - 1
  const wanted = lastLine + CONTEXT

  // Walk back from the edit to the first context line, rather than counting from the top.
  let offset = Math.min(change.at, bytes.length)
  offset = offset > 0 ? bytes.lastIndexOf(LF, offset - 1) + 1 : 0
  let from = firstLine
  while (from > 1 && firstLine - from < CONTEXT) {
    offset = offset >= 2 ? bytes.lastIndexOf(LF, offset - 2) + 1 : 0
    from--
  }

  const lines: string[] = []
  const limit = Math.min(wanted, from + SNIPPET_LINES - 1)
  let n = from
  for (; n <= limit && offset < bytes.length; n++) {
    const nl = bytes.indexOf(LF, offset)
    const end = nl === -1 ? bytes.length : nl
    let text = displayLine(bytes.subarray(offset, end), nl !== -1, n === 1) ?? ''
    if (text.length > SNIPPET_LINE_CHARS) text = `${text.slice(0, SNIPPET_LINE_CHARS)} [...]`
    lines.push(numbered(n, text))
    offset = end + 1
  }
  const more = n <= wanted && offset < bytes.length
  const fitted = fitLines(lines, Math.max(200, maxChars - 300))
  const shownTo = from + fitted.count - 1
  let body = fitted.text
  if (more || fitted.count < lines.length) {
    body += `\n[snippet cut at line ${shownTo}; view range: [${shownTo + 1}, ${wanted}] for the rest]`
  }
  const header = from === shownTo ? `Line ${from} now:` : `Lines ${from}-${shownTo} now:`
  return { header, body }
}

/** Counts occurrences, overlapping ones included ("aa" is in "aaa" twice), and finds the first. */
function occurrences(haystack: Buffer, needle: Buffer): [number, number] {
  let count = 0
  let first = -1
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) {
    if (count === 0) first = i
    count++
  }
  return [count, first]
}

function notFound(bytes: Buffer, info: TextInfo, oldText: string, display: string): ToolError {
  const hints: string[] = []
  const trimmed = oldText.trim()
  if (trimmed !== oldText && trimmed !== '') {
    const [count] = occurrences(bytes, modelTextToBytes(trimmed, info))
    if (count === 1) {
      hints.push('it appears once if leading and trailing whitespace is ignored')
    }
  }
  if (!info.crlf && oldText.includes('\n') && bytes.includes('\r\n')) {
    hints.push('the file mixes CRLF and LF line endings, which old_text must match exactly')
  }
  const extra = hints.length > 0 ? `; ${hints.join('; ')}` : ''
  return new ToolError(
    `old_text not found in ${display} (found 0 times)${extra}; check whitespace and indentation, or view the file to copy the exact text`,
  )
}
