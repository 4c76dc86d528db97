import type { FileHandle } from 'node:fs/promises'
import { JailEntry, type PathJail } from '../jail/index.js'
import { isReservedName } from './paths.js'

export type MemoryEntryKind = 'file' | 'link' | 'empty-folder'

export interface MemoryEntry {
  display: string
  kind: MemoryEntryKind
  /** Bytes for files; 0 for links and folders, which do not count toward the limit. */
  size: number
}

export interface MemoryTree {
  entries: MemoryEntry[]
  files: number
  total: number
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code
}

/**
 * Everything below the folder at `parts`, walked by descriptor without following symlinks, so a
 * link planted inside can neither leak an outside tree into the listing nor inflate the total.
 */
export async function scanTree(jail: PathJail, parts: readonly string[] = []): Promise<MemoryTree> {
  const tree: MemoryTree = { entries: [], files: 0, total: 0 }
  const top = await jail.openDir(parts)
  try {
    await walk(jail, top, parts, tree)
  } finally {
    await top.close()
  }
  tree.entries.sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0))
  return tree
}

/** Returns how many visible entries the folder holds, so empty folders can be shown. */
async function walk(
  jail: PathJail,
  dir: FileHandle,
  parts: readonly string[],
  tree: MemoryTree,
): Promise<number> {
  let visible = 0
  for (const dirent of await jail.readDir(dir)) {
    const name = dirent.name
    if (isReservedName(name)) continue
    const childParts = [...parts, name]
    const display = jail.displayOf(childParts)
    // An entry over the already-open folder: lstat by descriptor, never by a joined path string.
    // It is not closed here because closing it would close `dir`, which the caller owns.
    const stat = await new JailEntry(jail, dir, name, display).lstat()
    if (!stat) continue
    visible++
    if (stat.isDirectory()) {
      let child: FileHandle
      try {
        child = await jail.openChildDir(dir, name)
      } catch (error) {
        // Replaced by a link or removed since the lstat: nothing to list there.
        if (['ELOOP', 'ENOTDIR', 'ENOENT'].includes(errnoOf(error) ?? '')) continue
        throw error
      }
      try {
        const inside = await walk(jail, child, childParts, tree)
        if (inside === 0) tree.entries.push({ display, kind: 'empty-folder', size: 0 })
      } finally {
        await child.close()
      }
    } else if (stat.isFile()) {
      tree.entries.push({ display, kind: 'file', size: stat.size })
      tree.files++
      tree.total += stat.size
    } else if (stat.isSymbolicLink()) {
      tree.entries.push({ display, kind: 'link', size: 0 })
    }
  }
  return visible
}
