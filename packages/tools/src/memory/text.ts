import type { FileHandle } from 'node:fs/promises'
import { ToolError } from '../result.js'
import { formatBytes } from './limits.js'

// fatal: invalid UTF-8 is an error, not silently replaced (an edit would then corrupt the file).
// ignoreBOM: keep a byte order mark, so read shows the file as is and edit writes it back.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Reads an opened memory file as text, at most `limit` bytes: a file grown or planted beyond the
 * limit is refused instead of being pulled into memory whole.
 */
export async function readText(
  handle: FileHandle,
  display: string,
  limit: number,
): Promise<string> {
  const stat = await handle.stat()
  if (stat.isDirectory()) {
    throw new ToolError(`${display} is a folder; use list to see the files in it`)
  }
  if (!stat.isFile()) throw new ToolError(`${display} is not a regular file`)
  if (stat.size > limit) throw tooLarge(display, stat.size, limit)
  const buffer = Buffer.alloc(Math.min(stat.size, limit) + 1)
  let length = 0
  while (length < buffer.length) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
    if (bytesRead === 0) break
    length += bytesRead
  }
  // It grew after the stat; its real size is unknown, only that it is over.
  if (length > limit) throw tooLarge(display, undefined, limit)
  return decodeText(buffer.subarray(0, length), display)
}

function tooLarge(display: string, size: number | undefined, limit: number): ToolError {
  const actual = size === undefined ? 'larger than' : `${formatBytes(size)}, over`
  return new ToolError(
    `${display} is ${actual} the limit of ${formatBytes(limit)} per file, so it cannot be opened here; delete it or overwrite it with shorter content`,
  )
}

export function decodeText(bytes: Uint8Array, display: string): string {
  if (bytes.includes(0)) {
    throw new ToolError(
      `${display} looks like a binary file (it contains NUL bytes); memory files must be UTF-8 text`,
    )
  }
  try {
    return decoder.decode(bytes)
  } catch {
    throw new ToolError(
      `${display} is not valid UTF-8 text, so it cannot be read or edited here; delete it or overwrite it with write`,
    )
  }
}

/** Refuses text that could not be read back: memory files are plain UTF-8 text. */
export function checkWritableText(text: string, argument: string): void {
  if (text.includes('\0')) {
    throw new ToolError(`${argument} contains a NUL character; memory files must be plain text`)
  }
}

/** Counts matches including overlapping ones, so `aa` in `aaa` is 2 and the edit is refused. */
export function countOccurrences(text: string, needle: string): number {
  let count = 0
  let from = text.indexOf(needle)
  while (from !== -1) {
    count++
    from = text.indexOf(needle, from + 1)
  }
  return count
}
