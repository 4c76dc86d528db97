import { posix } from 'node:path'
import { ToolError } from '../result.js'

/** Longest path the jail accepts, in bytes (Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096
/** Longest single path component, in bytes (Linux NAME_MAX). */
export const MAX_NAME_BYTES = 255

/** A path the model gave, checked and placed inside the jail. */
export interface Located {
  /** The path as the model should see it, under the display root. */
  display: string
  /** Components below the real root; empty for the root itself. */
  parts: string[]
}

// Control characters are legal in Linux names but let a listing lie to the model (a newline in a
// name forges an extra entry), so the jail refuses them outright.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f]/

/**
 * Lexical half of the jail: validates the string and maps it under the display root. `..` is
 * resolved here, on the text, so the file system is never asked to walk upwards.
 */
export function locate(input: string, displayRoot: string): Located {
  if (input.length === 0) throw new ToolError('the path is empty')
  if (input.includes('\0')) throw new ToolError('the path contains a NUL byte')
  if (CONTROL.test(input)) throw new ToolError('the path contains control characters')
  const bytes = Buffer.byteLength(input)
  if (bytes > MAX_PATH_BYTES) {
    throw new ToolError(`the path is too long (${bytes} bytes; the limit is ${MAX_PATH_BYTES})`)
  }
  let relative: string
  if (input.startsWith('/')) {
    const normal = posix.normalize(input)
    if (displayRoot === '/') relative = normal.slice(1)
    else if (normal === displayRoot || normal === `${displayRoot}/`) relative = ''
    else if (normal.startsWith(`${displayRoot}/`)) relative = normal.slice(displayRoot.length + 1)
    else throw outside(input, displayRoot)
  } else {
    relative = posix.normalize(input)
    if (relative === '..' || relative.startsWith('../')) throw outside(input, displayRoot)
  }
  const parts = relative.split('/').filter((p) => p !== '' && p !== '.')
  for (const part of parts) {
    if (Buffer.byteLength(part) > MAX_NAME_BYTES) {
      throw new ToolError(`a path component is longer than ${MAX_NAME_BYTES} bytes`)
    }
  }
  return { display: displayOf(displayRoot, parts), parts }
}

export function displayOf(displayRoot: string, parts: readonly string[]): string {
  if (parts.length === 0) return displayRoot
  return displayRoot === '/' ? `/${parts.join('/')}` : `${displayRoot}/${parts.join('/')}`
}

export function outside(input: string, displayRoot: string): ToolError {
  return new ToolError(`${input} is outside ${displayRoot}; use a path under ${displayRoot}`)
}
