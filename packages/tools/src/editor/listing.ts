import type { Dirent } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import type { PathJail } from '../jail/index.js'
import { fitLines, plural } from './format.js'

export interface ListingOptions {
  maxEntries: number
  maxOutputChars: number
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f]/

/**
 * The folder's children and grandchildren, `ls -F` style, indented under the folder's path.
 * Hidden entries are counted but not shown: they are mostly tool state (.git, .venv) that
 * would crowd out the project. Symlinks are marked and never descended, so a listing cannot be
 * led outside the workspace or around a loop.
 */
export async function listFolder(
  jail: PathJail,
  dir: FileHandle,
  display: string,
  options: ListingOptions,
): Promise<string> {
  const lines = [display.endsWith('/') ? display : `${display}/`]
  let shown = 0
  let hidden = 0
  let capped = false

  const children = sortByName(await jail.readDir(dir))
  for (const child of children) {
    if (child.name.startsWith('.')) {
      hidden++
      continue
    }
    if (shown >= options.maxEntries) {
      capped = true
      break
    }
    lines.push(`  ${label(child)}`)
    shown++
    if (!child.isDirectory()) continue

    let sub: FileHandle
    try {
      sub = await jail.openChildDir(dir, child.name)
    } catch {
      // Unreadable, or swapped for a symlink since the read: list it, do not descend.
      lines[lines.length - 1] += '  (cannot be listed)'
      continue
    }
    try {
      for (const grandchild of sortByName(await jail.readDir(sub))) {
        if (grandchild.name.startsWith('.')) {
          hidden++
          continue
        }
        if (shown >= options.maxEntries) {
          capped = true
          break
        }
        lines.push(`    ${label(grandchild)}`)
        shown++
      }
    } catch {
      lines[lines.length - 1] += '  (cannot be listed)'
    } finally {
      await sub.close()
    }
    if (capped) break
  }

  if (shown === 0 && hidden === 0) lines.push('  (empty folder)')
  const notes: string[] = []
  if (hidden > 0) notes.push(`(${plural(hidden, 'hidden entry', 'hidden entries')} not shown)`)
  if (capped) {
    notes.push(
      `(listing stopped at ${options.maxEntries} entries; view a subfolder to see the rest)`,
    )
  }

  // Room for the notes, and for the one added below if the lines do not fit.
  const budget =
    options.maxOutputChars - notes.reduce((sum, note) => sum + note.length + 1, 0) - 150
  const fitted = fitLines(lines, Math.max(40, budget))
  if (fitted.count < lines.length) {
    notes.push(
      `(listing cut after ${plural(fitted.count - 1, 'entry', 'entries')} to fit the output limit; view a subfolder to see the rest)`,
    )
  }
  return [fitted.text, ...notes].join('\n')
}

function sortByName(entries: Dirent[]): Dirent[] {
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

function label(entry: Dirent): string {
  const name = CONTROL.test(entry.name) ? JSON.stringify(entry.name) : entry.name
  if (entry.isSymbolicLink()) return `${name}@`
  if (entry.isDirectory()) return `${name}/`
  if (entry.isFIFO()) return `${name}|`
  if (entry.isSocket()) return `${name}=`
  return name
}
