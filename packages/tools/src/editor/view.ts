import type { Stats } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { ToolError } from '../result.js'
import { numbered, plural } from './format.js'
import {
  CHUNK_BYTES,
  type LineIndex,
  type LineIndexCache,
  readLines,
  scanLines,
} from './line-index.js'
import { binaryError, displayLine, notUtf8Error, trimPartialChar } from './text-file.js'

/** Files smaller than one read chunk are rescanned each time; caching them would only evict big ones. */
const CACHE_MIN_BYTES = CHUNK_BYTES
/** Room kept for the notes that follow a cut listing. */
const NOTE_RESERVE = 250

export interface FileViewOptions {
  range?: [number, number] | undefined
  maxOutputChars: number
  cache: LineIndexCache
}

/** The file in `cat -n` form, paged so that memory stays flat however large the file is. */
export async function viewFile(
  handle: FileHandle,
  stat: Stats,
  display: string,
  options: FileViewOptions,
): Promise<string> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  const index = await indexOf(handle, stat, options.cache, buffer)
  if (index.binary) throw binaryError(display)
  if (index.lines === 0) return `${display} is empty (0 lines)`
  const [start, end] = resolveRange(options.range, index.lines, display)

  const charBudget = Math.max(40, options.maxOutputChars - NOTE_RESERVE)
  // A character takes at most 3 UTF-8 bytes per UTF-16 unit, so 4x the character budget in bytes
  // is always enough to fill the output.
  const page = await readLines(handle, index, start, end, charBudget * 4, buffer)

  const shown: string[] = []
  let used = 0
  let last = start - 1
  let longLine: number | undefined
  for (const item of page) {
    const bytes = item.partial ? trimPartialChar(item.bytes) : item.bytes
    const text = displayLine(bytes, item.terminated, item.line === 1)
    if (text === null) throw notUtf8Error(display, item.line)
    const entry = numbered(item.line, text)
    const cost = entry.length + (shown.length > 0 ? 1 : 0)
    if (used + cost > charBudget) {
      if (shown.length === 0) {
        shown.push(cutString(entry, charBudget))
        last = item.line
        longLine = item.line
      }
      break
    }
    shown.push(entry)
    used += cost
    last = item.line
    if (item.partial) {
      longLine = item.line
      break
    }
  }

  if (longLine !== undefined) {
    shown.push(`[line ${longLine} is too long to show whole; only its start is shown]`)
  }
  if (last < end) {
    const next = Math.min(end, last + Math.max(1, last - start + 1))
    shown.push(
      `[output truncated at line ${last} of ${index.lines}; view a narrower range, e.g. range: [${last + 1}, ${next}]]`,
    )
  }
  return shown.join('\n')
}

async function indexOf(
  handle: FileHandle,
  stat: Stats,
  cache: LineIndexCache,
  buffer: Buffer,
): Promise<LineIndex> {
  const cacheable = stat.size >= CACHE_MIN_BYTES
  const cached = cacheable ? cache.get(stat) : undefined
  if (cached) return cached
  const index = await scanLines(handle, buffer, stat.size)
  // A file that grew or shrank during the scan is indexed as read but not cached under a stamp
  // that does not describe it.
  if (cacheable && index.size === stat.size) cache.set(stat, index)
  return index
}

function resolveRange(
  range: [number, number] | undefined,
  lines: number,
  display: string,
): [number, number] {
  if (!range) return [1, lines]
  const [start, end] = range
  const has = `${display} has ${plural(lines, 'line')}`
  if (start < 1) throw new ToolError(`range start must be 1 or more, got ${start}; ${has}`)
  if (start > lines) {
    throw new ToolError(`range start ${start} is beyond the end of the file; ${has}`)
  }
  if (end === -1) return [start, lines]
  if (end < start) {
    throw new ToolError(
      `range end ${end} is before start ${start}; use -1 to view to the end of the file (${has})`,
    )
  }
  return [start, Math.min(end, lines)]
}

function cutString(text: string, length: number): string {
  const cut = text.slice(0, length)
  const lastUnit = cut.charCodeAt(cut.length - 1)
  // Do not leave half of a surrogate pair at the end.
  return lastUnit >= 0xd800 && lastUnit <= 0xdbff ? cut.slice(0, -1) : cut
}
