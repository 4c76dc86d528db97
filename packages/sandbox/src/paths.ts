import { SandboxError } from './driver.js'

const MAX_PATH_BYTES = 4096
const MAX_SEGMENT_BYTES = 255

/**
 * Checks a file path given relative to `/mnt/input/` or `/mnt/output/`: plain segments only, so it
 * cannot name anything outside that folder. Returns it normalised (no empty segments).
 */
export function checkRelativePath(path: unknown): string {
  if (typeof path !== 'string' || path.length === 0) {
    throw new SandboxError('a file path must be a non-empty string', 'invalid_path')
  }
  if (Buffer.byteLength(path) > MAX_PATH_BYTES || path.includes('\0') || path.startsWith('/')) {
    throw new SandboxError(
      `invalid file path: ${JSON.stringify(path.slice(0, 100))}`,
      'invalid_path',
    )
  }
  const segments = path.split('/').filter((s) => s.length > 0)
  if (
    segments.length === 0 ||
    segments.some((s) => s === '.' || s === '..' || Buffer.byteLength(s) > MAX_SEGMENT_BYTES)
  ) {
    throw new SandboxError(
      `invalid file path: ${JSON.stringify(path.slice(0, 100))}`,
      'invalid_path',
    )
  }
  return segments.join('/')
}
