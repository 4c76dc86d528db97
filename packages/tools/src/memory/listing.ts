import { formatBytes, formatCount, type MemoryLimits } from './limits.js'
import type { MemoryEntry, MemoryTree } from './tree.js'

// A name with a newline could forge extra lines in the listing, so such characters are escaped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f]/

function shown(display: string): string {
  return CONTROL.test(display) ? JSON.stringify(display) : display
}

function line(entry: MemoryEntry): string {
  switch (entry.kind) {
    case 'file':
      return `${shown(entry.display)} (${formatBytes(entry.size)})`
    case 'link':
      return `${shown(entry.display)} (symbolic link, not followed)`
    case 'empty-folder':
      return `${shown(entry.display)}/ (empty folder)`
  }
}

/** Where `list` stops naming entries, so a crowded folder cannot flood the conversation. */
export const MAX_LISTING_CHARS = 20_000

/**
 * The text `list` returns: one line per entry, sorted, up to `maxChars`, then how many were left
 * out, then the total against the limit.
 */
export function formatListing(
  tree: MemoryTree,
  limits: MemoryLimits,
  displayRoot: string,
  maxChars = MAX_LISTING_CHARS,
): string {
  if (tree.entries.length === 0) {
    return [`No memories yet: ${displayRoot} is empty.`, totalLine(tree, limits)].join('\n')
  }
  const lines: string[] = []
  let used = 0
  for (const entry of tree.entries) {
    const next = line(entry)
    used += next.length + 1
    if (used > maxChars) break
    lines.push(next)
  }
  const left = tree.entries.length - lines.length
  if (left > 0) {
    lines.push(
      `... and ${formatCount(left)} more ${left === 1 ? 'entry' : 'entries'} not shown (the list stops at ${formatCount(maxChars)} characters). Read or delete files you no longer need.`,
    )
  }
  lines.push(totalLine(tree, limits))
  return lines.join('\n')
}

function totalLine(tree: MemoryTree, limits: MemoryLimits): string {
  const files = tree.files === 1 ? '1 file' : `${tree.files} files`
  return `Total: ${formatBytes(tree.total)} in ${files} (limit: ${formatBytes(limits.maxTotalBytes)})`
}
