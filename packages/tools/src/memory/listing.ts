import { formatBytes, type MemoryLimits } from './limits.js'
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

/** The text `list` returns: one line per entry, sorted, then the total against the limit. */
export function formatListing(tree: MemoryTree, limits: MemoryLimits, displayRoot: string): string {
  const lines =
    tree.entries.length === 0
      ? [`No memories yet: ${displayRoot} is empty.`]
      : tree.entries.map(line)
  const files = tree.files === 1 ? '1 file' : `${tree.files} files`
  lines.push(
    `Total: ${formatBytes(tree.total)} in ${files} (limit: ${formatBytes(limits.maxTotalBytes)})`,
  )
  return lines.join('\n')
}
