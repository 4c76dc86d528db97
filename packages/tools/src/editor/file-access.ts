import type { Stats } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import type { Located, PathJail } from '../jail/index.js'
import { ToolError } from '../result.js'
import { describeSize } from './format.js'

/** A workspace file read for an edit, and where the edited version must be written. */
export interface EditableFile {
  bytes: Buffer
  /** Stats of the file that was read; the write is refused if the file is no longer this one. */
  stat: Stats
  /**
   * The name to replace. A final symlink inside the workspace is followed, so the edit lands in
   * the file it points to and the link stays a link.
   */
  target: Located
}

const isRoot = process.getuid?.() === 0

export function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder'
  if (stat.isFIFO()) return 'a named pipe (FIFO)'
  if (stat.isSocket()) return 'a socket'
  if (stat.isCharacterDevice()) return 'a character device'
  if (stat.isBlockDevice()) return 'a block device'
  if (stat.isSymbolicLink()) return 'a symbolic link'
  return 'a regular file'
}

export function notRegularError(display: string, stat: Stats): ToolError {
  return new ToolError(
    `${display} is ${kindOf(stat)}, not a regular file; the editor only handles regular files`,
  )
}

/** Checks a file before opening it, so a device or pipe is never opened at all. */
export function assertOpenable(stat: Stats, display: string): void {
  if (!stat.isSymbolicLink() && !stat.isFile() && !stat.isDirectory()) {
    throw notRegularError(display, stat)
  }
}

/** Reads a regular file through the jail for editing; null when nothing is at the path. */
export async function readEditable(
  jail: PathJail,
  location: Located,
  maxBytes: number,
): Promise<EditableFile | null> {
  const { display } = location
  const entry = await jail.entry(location)
  let handle: FileHandle
  let link: boolean
  try {
    const lstat = await entry.lstat()
    if (!lstat) return null
    if (lstat.isDirectory()) throw new ToolError(`${display} is a folder; only files can be edited`)
    assertOpenable(lstat, display)
    link = lstat.isSymbolicLink()
    handle = await entry.open()
  } finally {
    await entry.close()
  }
  try {
    const stat = await handle.stat()
    if (stat.isDirectory()) throw new ToolError(`${display} is a folder; only files can be edited`)
    if (!stat.isFile()) throw notRegularError(display, stat)
    if (stat.size > maxBytes) {
      throw new ToolError(
        `${display} is ${describeSize(stat.size)}; the editor only edits files up to ${describeSize(maxBytes)} (view still works)`,
      )
    }
    const bytes = await readAll(handle, stat.size)
    const target = link ? { display, parts: await realParts(jail, handle, display) } : location
    return { bytes, stat, target }
  } finally {
    await handle.close()
  }
}

/**
 * Replaces the file read by `readEditable` with new bytes, atomically, keeping its mode (or the
 * given one) and, as root, its owner. Refused if the file was replaced or modified since the
 * read, so a concurrent change is never silently overwritten.
 */
export async function writeBack(
  jail: PathJail,
  file: EditableFile,
  data: Buffer,
  keep: { mode: number; uid: number; gid: number } = file.stat,
): Promise<void> {
  const entry = await jail.entry(file.target)
  try {
    if (!sameFile(await entry.lstat(), file.stat)) throw changedError(file.target.display)
    await entry
      .writeAtomic(data, {
        mode: keep.mode & 0o7777,
        owner: isRoot && keep.uid >= 0 ? { uid: keep.uid, gid: keep.gid } : undefined,
      })
      .catch((error: unknown) => {
        throw jail.describe(error, file.target.display)
      })
  } finally {
    await entry.close()
  }
}

/** Writes a file that must not exist yet, making missing parent folders. */
export async function writeNew(
  jail: PathJail,
  location: Located,
  data: Buffer,
  keep: { mode: number; uid?: number; gid?: number },
): Promise<void> {
  const entry = await jail.entry(location, { createParents: true })
  const owner =
    isRoot && keep.uid !== undefined && keep.uid >= 0 && keep.gid !== undefined
      ? { uid: keep.uid, gid: keep.gid }
      : undefined
  try {
    await entry
      .writeAtomic(data, { mode: keep.mode & 0o7777, exclusive: true, owner })
      .catch((error: unknown) => {
        throw jail.describe(error, location.display)
      })
  } finally {
    await entry.close()
  }
}

/** Removes the file read by `readEditable`, unless it changed since. */
export async function removeFile(jail: PathJail, file: EditableFile): Promise<void> {
  const entry = await jail.entry(file.target)
  try {
    if (!sameFile(await entry.lstat(), file.stat)) throw changedError(file.target.display)
    await entry.unlink()
  } finally {
    await entry.close()
  }
}

function changedError(display: string): ToolError {
  return new ToolError(`${display} changed while it was being edited; view it and try again`)
}

function sameFile(now: Stats | null, then: Stats): boolean {
  return (
    now !== null &&
    now.dev === then.dev &&
    now.ino === then.ino &&
    now.size === then.size &&
    now.mtimeMs === then.mtimeMs
  )
}

async function readAll(handle: FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size)
  let filled = 0
  while (filled < size) {
    const { bytesRead } = await handle.read(buffer, filled, size - filled, filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return filled === size ? buffer : buffer.subarray(0, filled)
}

/** Where an open workspace file really is, as components under the jail root. */
async function realParts(jail: PathJail, handle: FileHandle, display: string): Promise<string[]> {
  const parts = await jail.partsOf(handle)
  if (parts === null || parts.length === 0) {
    throw new ToolError(`${display} resolves outside ${jail.displayRoot}`)
  }
  return parts
}
