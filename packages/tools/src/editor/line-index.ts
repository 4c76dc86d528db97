import type { Stats } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { BINARY_PROBE_BYTES } from './text-file.js'

/**
 * Read size for scans and pages; one buffer of this size is reused for a whole view. Large enough
 * that a 100 MB scan is 25 reads (with 1 MiB the per-read overhead cost ~15 ms of a ~60 ms scan),
 * small enough to keep memory flat.
 */
export const CHUNK_BYTES = 4 * 1024 * 1024
/** Every STRIDE-th line start is remembered, so a seek lands at most STRIDE - 1 lines early. */
export const STRIDE = 1024

const LF = 0x0a

/**
 * A sparse map from line numbers to byte offsets. For a 100 MB file of 60-byte lines it holds
 * about 1,600 numbers, yet lets a view start reading within 1,024 lines of any line.
 */
export interface LineIndex {
  size: number
  /** Number of lines, counting an unterminated last line. */
  lines: number
  /** offsets[k] is where line k * STRIDE + 1 starts. */
  offsets: number[]
  binary: boolean
}

/** One line read for display; `bytes` is a copy, so it outlives the reused read buffer. */
export interface PageLine {
  line: number
  bytes: Buffer
  /** The line ended with a newline (so a trailing CR belongs to a CRLF ending). */
  terminated: boolean
  /** Only the start of the line was read, because it alone exceeds the output budget. */
  partial: boolean
}

/**
 * Reads the file once in fixed chunks, counting newlines and noting every STRIDE-th start. Only
 * the `size` bytes the file had when it was opened: a file that something keeps appending to
 * (a background `yes >> log`) would otherwise never finish scanning.
 */
export async function scanLines(
  handle: FileHandle,
  buffer: Buffer,
  size: number,
): Promise<LineIndex> {
  const offsets = [0]
  let position = 0
  let newlines = 0
  let last = -1
  while (position < size) {
    const want = Math.min(buffer.length, size - position)
    const { bytesRead } = await handle.read(buffer, 0, want, position)
    if (bytesRead === 0) break
    const chunk = buffer.subarray(0, bytesRead)
    if (
      position < BINARY_PROBE_BYTES &&
      chunk.subarray(0, BINARY_PROBE_BYTES - position).includes(0)
    ) {
      return { size: position + bytesRead, lines: 0, offsets: [0], binary: true }
    }
    for (let i = chunk.indexOf(LF); i !== -1; i = chunk.indexOf(LF, i + 1)) {
      newlines++
      if (newlines % STRIDE === 0) offsets.push(position + i + 1)
    }
    last = chunk[bytesRead - 1] ?? -1
    position += bytesRead
  }
  const lines = newlines + (position > 0 && last !== LF ? 1 : 0)
  return { size: position, lines, offsets, binary: false }
}

/**
 * Reads lines `start`..`end` (1-based, inclusive, `end` within the file), seeking with the index.
 * Stops early once `byteBudget` is spent (each line also costs its display prefix), so a huge
 * range or a huge line never pulls more than the budget into memory.
 */
export async function readLines(
  handle: FileHandle,
  index: LineIndex,
  start: number,
  end: number,
  byteBudget: number,
  buffer: Buffer,
): Promise<PageLine[]> {
  const slot = Math.min(Math.floor((start - 1) / STRIDE), index.offsets.length - 1)
  let position = index.offsets[slot] ?? 0
  let line = slot * STRIDE + 1
  let left = byteBudget
  let parts: Buffer[] = []
  const out: PageLine[] = []
  for (;;) {
    const want = Math.max(0, Math.min(buffer.length, index.size - position))
    const { bytesRead } =
      want === 0 ? { bytesRead: 0 } : await handle.read(buffer, 0, want, position)
    if (bytesRead === 0) {
      // An unterminated last line (or the end of the file as it was when indexed).
      if (line >= start && line <= end && parts.length > 0) {
        out.push({ line, bytes: Buffer.concat(parts), terminated: false, partial: false })
      }
      return out
    }
    const chunk = buffer.subarray(0, bytesRead)
    let cursor = 0
    while (cursor < bytesRead) {
      const nl = chunk.indexOf(LF, cursor)
      const stop = nl === -1 ? bytesRead : nl
      if (line >= start) {
        const take = Math.min(stop - cursor, left)
        if (take > 0) parts.push(Buffer.from(chunk.subarray(cursor, cursor + take)))
        left -= take
        if (take < stop - cursor) {
          out.push({ line, bytes: Buffer.concat(parts), terminated: false, partial: true })
          return out
        }
      }
      if (nl === -1) break
      if (line >= start) {
        out.push({ line, bytes: Buffer.concat(parts), terminated: true, partial: false })
        parts = []
        left -= 8
      }
      line++
      cursor = nl + 1
      if (line > end || left <= 0) return out
    }
    position += bytesRead
  }
}

interface Cached {
  stamp: string
  index: LineIndex
}

/**
 * Keeps the indexes of the last few large files viewed, so paging through one costs a seek and
 * a chunk read instead of a full scan. Keyed by device and inode; the stamp (size and times)
 * drops an index as soon as the file changes.
 */
export class LineIndexCache {
  private readonly entries = new Map<string, Cached>()

  constructor(private readonly capacity = 4) {}

  get(stat: Stats): LineIndex | undefined {
    const key = keyOf(stat)
    const hit = this.entries.get(key)
    if (!hit) return undefined
    this.entries.delete(key)
    if (hit.stamp !== stampOf(stat)) return undefined
    this.entries.set(key, hit)
    return hit.index
  }

  set(stat: Stats, index: LineIndex): void {
    const key = keyOf(stat)
    this.entries.delete(key)
    this.entries.set(key, { stamp: stampOf(stat), index })
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value
      if (oldest === undefined) break
      this.entries.delete(oldest)
    }
  }
}

function keyOf(stat: Stats): string {
  return `${stat.dev}:${stat.ino}`
}

// ctime as well as mtime: mtime can be set back by anyone, ctime moves on every write.
function stampOf(stat: Stats): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`
}
