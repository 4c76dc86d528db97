import { ToolError } from '../result.js'

export const DEFAULT_MAX_FILE_BYTES = 256 * 1024
export const DEFAULT_MAX_TOTAL_BYTES = 16 * 1024 * 1024
export const DEFAULT_MAX_FILES = 1000

export interface MemoryLimits {
  maxFileBytes: number
  maxTotalBytes: number
  maxFiles: number
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`)
  }
  return value
}

/** Checks the application's options; a bad value is a programming error, so it throws. */
export function resolveLimits(options: {
  maxFileBytes?: number
  maxTotalBytes?: number
  maxFiles?: number
}): MemoryLimits {
  return {
    maxFileBytes: positive(options.maxFileBytes, DEFAULT_MAX_FILE_BYTES, 'maxFileBytes'),
    maxTotalBytes: positive(options.maxTotalBytes, DEFAULT_MAX_TOTAL_BYTES, 'maxTotalBytes'),
    maxFiles: positive(options.maxFiles, DEFAULT_MAX_FILES, 'maxFiles'),
  }
}

/** `1,234`; grouped by hand so the text does not depend on the ICU build. */
export function formatCount(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** `1,234 bytes`, `1 byte`. */
export function formatBytes(count: number): string {
  return count === 1 ? '1 byte' : `${formatCount(count)} bytes`
}

/** Refuses content that would make one file larger than the per-file limit. */
export function checkFileSize(
  display: string,
  size: number,
  limits: MemoryLimits,
  command: 'write' | 'edit',
): void {
  if (size <= limits.maxFileBytes) return
  const what =
    command === 'write' ? `the content for ${display} is` : `after this edit ${display} would be`
  const advice =
    command === 'write'
      ? 'Shorten it or split it into several files.'
      : 'Shorten new_text, or move part of the file into another file first.'
  throw new ToolError(
    `${what} ${formatBytes(size)}, over the limit of ${formatBytes(limits.maxFileBytes)} per file; nothing was ${command === 'write' ? 'written' : 'changed'}. ${advice}`,
  )
}

/**
 * Refuses a change that would push the folder over its total limit. A change that does not grow
 * the folder is always allowed, so a folder already over a lowered limit can still be shrunk.
 */
export function checkTotal(
  displayRoot: string,
  current: number,
  oldSize: number,
  newSize: number,
  limits: MemoryLimits,
): void {
  const next = current - oldSize + newSize
  if (next <= limits.maxTotalBytes || newSize <= oldSize) return
  throw new ToolError(
    `this change would bring ${displayRoot} to ${formatBytes(next)} in total, over the limit of ${formatBytes(limits.maxTotalBytes)} (${formatBytes(current)} used now); nothing was written. Delete or shorten memories that are no longer needed, then try again.`,
  )
}

/**
 * Refuses a new file once the folder holds `maxFiles` entries. Empty files, empty folders and
 * links weigh 0 bytes, so without a count the total limit would never stop thousands of them.
 * Replacing a file that exists is always allowed.
 */
export function checkFileCount(displayRoot: string, entries: number, limits: MemoryLimits): void {
  if (entries < limits.maxFiles) return
  throw new ToolError(
    `${displayRoot} already holds ${formatCount(entries)} files and folders (limit: ${formatCount(limits.maxFiles)}); nothing was written. Merge related notes into one file, or delete files you no longer need, then try again.`,
  )
}
