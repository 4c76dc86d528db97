import { ROOT_MAX_CHARS } from '@syntic/protocol'
import { DISPLAY_ROOT } from './paths.js'

// The root is repeated in every result the model reads, so the same characters the API refuses in
// a tool entry's `root` are refused here: C0 and C1 controls, DEL, the Unicode line and paragraph
// separators, and the bidirectional overrides that make text read differently.
const UNSAFE_CHARS = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u

/**
 * Checks the application's `displayRoot` and returns it without a trailing slash; a bad value is
 * a programming error, so it throws. Accepts exactly what the API accepts as a memory tool's
 * `root`, so an application can pass the tool entry's root straight through.
 */
export function resolveDisplayRoot(value: unknown): string {
  if (value === undefined) return DISPLAY_ROOT
  if (typeof value !== 'string') {
    throw new TypeError(`displayRoot must be a string such as "/memories", got ${typeof value}`)
  }
  if (value.length > ROOT_MAX_CHARS) {
    throw new TypeError(
      `displayRoot is ${value.length} characters long; the limit is ${ROOT_MAX_CHARS}`,
    )
  }
  if (UNSAFE_CHARS.test(value)) {
    throw new TypeError('displayRoot must not contain NUL, control or line-separator characters')
  }
  if (!value.startsWith('/')) {
    throw new TypeError(
      `displayRoot must be an absolute path starting with "/", such as "/memories"; got ${JSON.stringify(value)}`,
    )
  }
  // One trailing slash is harmless (`/memories/`, and `//` for `/`), as in the API; it is dropped
  // so the text reads cleanly.
  const root = value.length > 1 && value.endsWith('/') ? value.slice(0, -1) : value
  const segments = root.split('/').slice(1)
  if (root !== '/' && segments.some((p) => p === '' || p === '.' || p === '..')) {
    throw new TypeError(
      `displayRoot must be a normalised path without "..", "." or empty segments; got ${JSON.stringify(value)}`,
    )
  }
  return root
}
