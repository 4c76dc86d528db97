/** Longest filename in UTF-8 bytes: what Linux and most file systems take for one path part. */
export const MAX_FILENAME_BYTES = 255

// C0 and C1 controls, DEL, and the bidirectional overrides that make a name display as another.
function hasForbiddenCharacter(name: string): boolean {
  for (const char of name) {
    const c = char.codePointAt(0)!
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return true
  }
  return false
}

// Half of a UTF-16 pair: not a character, and not encodable in UTF-8.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Null when `name` is a usable filename, else what is wrong with it. A filename is one path part:
 * no folders, nothing that escapes on a terminal or in a header. The message never repeats the
 * name, which may be huge or hostile.
 */
export function checkFilename(name: string): string | null {
  if (name.length === 0) return 'the filename is empty'
  if (Buffer.byteLength(name, 'utf8') > MAX_FILENAME_BYTES) {
    return `the filename is longer than ${MAX_FILENAME_BYTES} bytes`
  }
  if (LONE_SURROGATE.test(name)) return 'the filename is not valid Unicode'
  if (name.includes('/') || name.includes('\\')) {
    return 'the filename contains a path separator (/ or \\); send the name alone'
  }
  if (hasForbiddenCharacter(name)) return 'the filename contains control characters'
  if (name === '.' || name === '..') return 'the filename cannot be . or ..'
  if (name.trim() !== name) return 'the filename starts or ends with white space'
  return null
}

/**
 * A `Content-Disposition` value that downloads the file under its name: an ASCII fallback for old
 * clients and the exact name in RFC 5987 form. `attachment` keeps browsers from rendering it.
 */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(filename)}`
}

function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}
