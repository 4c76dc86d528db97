import { randomBytes } from 'node:crypto'
import { constants, type Dirent, promises as fsp, type Stats } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { posix } from 'node:path'
import { ToolError } from '../result.js'
import { displayOf, type Located, locate } from './locate.js'

const { O_RDONLY, O_WRONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_CREAT, O_EXCL } = constants

// Every operation goes through a descriptor the jail has opened and checked, addressed as
// /proc/self/fd/N/name. That is openat() for Node: once a folder is checked, swapping a symlink
// into the path afterwards cannot redirect the operation, because the kernel resolves the name
// inside the folder the descriptor holds.
function fdPath(handle: FileHandle, name?: string): string {
  return name === undefined ? `/proc/self/fd/${handle.fd}` : `/proc/self/fd/${handle.fd}/${name}`
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code
}

/** An exclusive write found the name taken; callers that race on purpose (locks) test for it. */
export class AlreadyExistsError extends ToolError {
  override name = 'AlreadyExistsError'
}

export interface WriteOptions {
  /** Permission bits of the new file (umask does not apply). */
  mode: number
  /** Fail if the name exists, atomically (create). Otherwise replace it (edit, write). */
  exclusive?: boolean
  /** Owner to keep when replacing a file as root. */
  owner?: { uid: number; gid: number }
}

/** A name inside a checked folder. Close it when done. */
export class JailEntry {
  constructor(
    private readonly jail: PathJail,
    private readonly parent: FileHandle,
    readonly name: string,
    readonly display: string,
  ) {}

  /** Stats of the name itself, not following a final symlink; null when it does not exist. */
  async lstat(): Promise<Stats | null> {
    try {
      return await fsp.lstat(fdPath(this.parent, this.name))
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return null
      throw error
    }
  }

  /**
   * Opens the entry, following symlinks, then checks where the descriptor really points: the
   * check happens on the open file, so no swap between check and use can slip through.
   * Nonblocking, so a FIFO cannot hang the open.
   */
  async open(flags: number = O_RDONLY): Promise<FileHandle> {
    // Opening a device or a FIFO has effects of its own (a waiting writer is released, a watchdog
    // starts), so a target outside is refused before it is opened; the check on the descriptor
    // below still catches a swap made in between.
    const target = await fsp.realpath(fdPath(this.parent, this.name)).catch(() => null)
    if (target !== null && !this.jail.contains(target)) throw this.jail.escape(this.display)
    let handle: FileHandle
    try {
      handle = await fsp.open(fdPath(this.parent, this.name), flags | O_NONBLOCK)
    } catch (error) {
      throw this.jail.describe(error, this.display)
    }
    await this.jail.verify(handle, this.display)
    return handle
  }

  /** Writes through a temp file, fsync and rename, so readers see the old or the new file whole. */
  async writeAtomic(data: Uint8Array | string, options: WriteOptions): Promise<void> {
    const temp = `.syntic-tmp-${randomBytes(8).toString('hex')}`
    const tempPath = fdPath(this.parent, temp)
    const handle = await fsp.open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, options.mode)
    try {
      try {
        await handle.writeFile(data)
        // chown clears setuid/setgid bits, so it goes first and chmod puts the mode back whole.
        if (options.owner) await handle.chown(options.owner.uid, options.owner.gid)
        await handle.chmod(options.mode)
        await handle.datasync()
      } finally {
        await handle.close()
      }
      if (options.exclusive) {
        // link() fails if the name exists, which makes create atomic and exclusive at once.
        await fsp.link(tempPath, fdPath(this.parent, this.name)).catch((error: unknown) => {
          if (errnoOf(error) === 'EEXIST')
            throw new AlreadyExistsError(`${this.display} already exists`)
          throw this.jail.describe(error, this.display)
        })
        await fsp.unlink(tempPath)
      } else {
        await fsp.rename(tempPath, fdPath(this.parent, this.name)).catch((error: unknown) => {
          throw this.jail.describe(error, this.display)
        })
      }
    } catch (error) {
      await fsp.unlink(tempPath).catch(() => undefined)
      throw error
    }
  }

  /** Removes a file or symlink (never what a symlink points to). */
  async unlink(): Promise<void> {
    try {
      await fsp.unlink(fdPath(this.parent, this.name))
    } catch (error) {
      throw this.jail.describe(error, this.display)
    }
  }

  /** Removes a folder and everything in it, walking by descriptor and never following links. */
  async removeTree(): Promise<void> {
    const dir = await fsp.open(fdPath(this.parent, this.name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    try {
      await removeContents(dir)
    } finally {
      await dir.close()
    }
    await fsp.rmdir(fdPath(this.parent, this.name))
  }

  async close(): Promise<void> {
    await this.parent.close()
  }
}

async function removeContents(dir: FileHandle): Promise<void> {
  for (const entry of await fsp.readdir(fdPath(dir), { withFileTypes: true })) {
    if (entry.isDirectory()) {
      const child = await fsp.open(fdPath(dir, entry.name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
      try {
        await removeContents(child)
      } finally {
        await child.close()
      }
      await fsp.rmdir(fdPath(dir, entry.name))
    } else {
      await fsp.unlink(fdPath(dir, entry.name))
    }
  }
}

/**
 * Confines paths to one real folder, shown to the model under a display root such as
 * `/workspace`. Rejects `..` that leaves the folder, absolute paths outside the display root,
 * NUL and control characters, over-long paths, and symlinks that resolve outside, checked on the
 * opened descriptor.
 */
export class PathJail {
  private constructor(
    readonly realRoot: string,
    readonly displayRoot: string,
    private readonly rootIdentity: { dev: number; ino: number },
  ) {}

  /** `root` must be an existing folder; `displayRoot` defaults to its real path. */
  static async open(root: string, displayRoot?: string): Promise<PathJail> {
    const realRoot = await fsp.realpath(root)
    const stat = await fsp.stat(realRoot)
    if (!stat.isDirectory()) throw new Error(`${root} is not a folder`)
    const display = posix.normalize(displayRoot ?? realRoot).replace(/(.)\/$/, '$1')
    if (!display.startsWith('/')) throw new Error(`the display root must be absolute: ${display}`)
    return new PathJail(realRoot, display, { dev: stat.dev, ino: stat.ino })
  }

  locate(input: string): Located {
    return locate(input, this.displayRoot)
  }

  displayOf(parts: readonly string[]): string {
    return displayOf(this.displayRoot, parts)
  }

  contains(real: string): boolean {
    if (this.realRoot === '/') return real.startsWith('/')
    return real === this.realRoot || real.startsWith(`${this.realRoot}/`)
  }

  escape(display: string): ToolError {
    return new ToolError(
      `${display} resolves outside ${this.displayRoot} through a symbolic link; use a path under ${this.displayRoot}`,
    )
  }

  /**
   * Where an open descriptor really is, as components below the root: [] for the root itself,
   * null when it is outside the jail.
   */
  async partsOf(handle: FileHandle): Promise<string[] | null> {
    const real = await fsp.readlink(fdPath(handle))
    if (!this.contains(real)) return null
    if (real === this.realRoot) return []
    return (this.realRoot === '/' ? real.slice(1) : real.slice(this.realRoot.length + 1)).split('/')
  }

  /** Closes the handle and throws unless it points inside the jail. */
  async verify(handle: FileHandle, display: string): Promise<void> {
    const real = await fsp.readlink(fdPath(handle))
    if (!this.contains(real)) {
      await handle.close()
      throw this.escape(display)
    }
  }

  /** Turns a file system error into a message about the model's path. */
  describe(error: unknown, display: string): Error {
    if (error instanceof ToolError) return error
    switch (errnoOf(error)) {
      case 'ENOENT':
        return new ToolError(`${display} does not exist`)
      case 'ENOTDIR':
        return new ToolError(`a part of ${display} is not a folder`)
      case 'EISDIR':
        return new ToolError(`${display} is a folder`)
      case 'ELOOP':
        return new ToolError(`${display} has too many levels of symbolic links`)
      case 'EACCES':
      case 'EPERM':
        return new ToolError(`permission denied: ${display}`)
      case 'ENAMETOOLONG':
        return new ToolError(`the path ${display} is too long`)
      case 'ENOSPC':
        return new ToolError('no space left on the device')
      default:
        return error instanceof Error ? error : new Error(String(error))
    }
  }

  /**
   * Opens the folder at `parts` one component at a time, checking each descriptor before the
   * next step. With `create`, missing folders are made with `mode`.
   */
  async openDir(parts: readonly string[], options: { create?: boolean; mode?: number } = {}) {
    let current = await this.openRoot()
    for (let i = 0; i < parts.length; i++) {
      const display = this.displayOf(parts.slice(0, i + 1))
      const path = fdPath(current, parts[i])
      let next: FileHandle
      try {
        if (options.create) await this.makeDir(path, options.mode ?? 0o755)
        next = await fsp.open(path, O_RDONLY | O_DIRECTORY)
      } catch (error) {
        const code = errnoOf(error)
        throw code === 'ENOTDIR'
          ? new ToolError(`${display} is not a folder`)
          : this.describe(error, display)
      } finally {
        await current.close()
      }
      await this.verify(next, display)
      current = next
    }
    return current
  }

  /**
   * Opens the root by its path, so it is checked like every other step: it must still be the
   * folder the jail was opened on, not a symlink or another folder renamed into its place.
   */
  private async openRoot(): Promise<FileHandle> {
    let handle: FileHandle
    try {
      handle = await fsp.open(this.realRoot, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    } catch (error) {
      throw new ToolError(
        `the folder behind ${this.displayRoot} is gone or was replaced (${errnoOf(error) ?? 'error'})`,
      )
    }
    const stat = await handle.stat()
    if (stat.dev !== this.rootIdentity.dev || stat.ino !== this.rootIdentity.ino) {
      await handle.close()
      throw new ToolError(`the folder behind ${this.displayRoot} was replaced; nothing was done`)
    }
    return handle
  }

  private async makeDir(path: string, mode: number): Promise<void> {
    try {
      await fsp.mkdir(path, { mode })
      await fsp.chmod(path, mode)
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST') throw error
    }
  }

  /** The named entry inside its checked parent folder. The root itself has no entry. */
  async entry(
    location: Located,
    options: { createParents?: boolean; dirMode?: number } = {},
  ): Promise<JailEntry> {
    const name = location.parts.at(-1)
    if (name === undefined) throw new ToolError(`${this.displayRoot} is the top folder itself`)
    const parent = await this.openDir(location.parts.slice(0, -1), {
      create: options.createParents ?? false,
      mode: options.dirMode ?? 0o755,
    })
    return new JailEntry(this, parent, name, location.display)
  }

  /** Opens an existing file or folder (the root included), checked. */
  async openExisting(location: Located): Promise<FileHandle> {
    if (location.parts.length === 0) return this.openDir([])
    const entry = await this.entry(location)
    try {
      return await entry.open()
    } finally {
      await entry.close()
    }
  }

  /** Lists a folder opened by `openExisting`/`openDir`. */
  async readDir(dir: FileHandle): Promise<Dirent[]> {
    return fsp.readdir(fdPath(dir), { withFileTypes: true })
  }

  /** Opens a subfolder of an open folder without following a symlink, for listings. */
  async openChildDir(dir: FileHandle, name: string): Promise<FileHandle> {
    return fsp.open(fdPath(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
  }
}
