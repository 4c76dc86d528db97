import { constants, promises as fsp, type Stats } from 'node:fs'
import { resolve } from 'node:path'
import { checkToolInput, type MemoryInput } from '@syntic/protocol'
import type { ToolHandler } from '../handler.js'
import { type JailEntry, type Located, PathJail } from '../jail/index.js'
import { runSafely, success, ToolError, type ToolResult } from '../result.js'
import { resolveDisplayRoot } from './display-root.js'
import {
  checkFileCount,
  checkFileSize,
  checkTotal,
  formatBytes,
  type MemoryLimits,
  resolveLimits,
} from './limits.js'
import { formatListing } from './listing.js'
import { type LockOptions, withMemoryLock } from './lock.js'
import { locateMemory, locateTarget } from './paths.js'
import { checkWritableText, countOccurrences, readText } from './text.js'
import { scanTree } from './tree.js'

export interface MemoryOptions {
  /** Application-chosen directory that holds the memory files; created 0700 if missing. */
  dir: string
  /** Largest size of one file after a write or edit. Default 256 KiB. */
  maxFileBytes?: number
  /** Largest size of all files together. Default 16 MiB. */
  maxTotalBytes?: number
  /**
   * Most entries (files, empty folders, links) the folder may hold; a write that would create a
   * file beyond it is refused. Default 1,000.
   */
  maxFiles?: number
  /**
   * The folder the model sees, shown in every result and accepted in paths; the memory tool's
   * `root` in the request. Absolute and normalised. Default `/memories`.
   */
  displayRoot?: string
}

// Memory files hold whatever a user said: private to the account running the application.
const FILE_MODE = 0o600
const DIR_MODE = 0o700

type Input<C extends MemoryInput['command']> = Extract<MemoryInput, { command: C }>

/**
 * The `syntic_memory` tool: a folder (`/memories` to the model unless the application picks
 * another display root) that persists between conversations. Every access goes through the path
 * jail; changes are serialized across processes by a lock file. File contents are never logged.
 */
export class MemoryTool implements ToolHandler {
  readonly name = 'syntic_memory'
  private readonly dir: string
  private readonly limits: MemoryLimits
  private readonly displayRoot: string
  private ready: Promise<PathJail> | undefined

  /** Tests shorten the lock's waits; the application has no reason to. */
  protected lockOptions: LockOptions = {}

  constructor(options: MemoryOptions) {
    if (typeof options?.dir !== 'string' || options.dir === '') {
      throw new TypeError('MemoryTool needs options.dir, the folder that holds the memory files')
    }
    this.dir = resolve(options.dir)
    this.limits = resolveLimits(options)
    this.displayRoot = resolveDisplayRoot(options.displayRoot)
  }

  async run(input: unknown): Promise<ToolResult> {
    return runSafely(async () => {
      const checked = checkToolInput('syntic_memory', input)
      if (!checked.ok) throw new ToolError(checked.error)
      const jail = await this.open()
      const call = checked.value
      switch (call.command) {
        case 'list':
          return success(formatListing(await scanTree(jail), this.limits, jail.displayRoot))
        case 'read':
          return success(await this.read(jail, call))
        case 'write':
          return success(await this.write(jail, call))
        case 'edit':
          return success(await this.edit(jail, call))
        case 'delete':
          return success(await this.delete(jail, call))
      }
    })
  }

  /** Creates and locks down the folder once; a failure is retried on the next call. */
  private open(): Promise<PathJail> {
    if (!this.ready) {
      const opening = prepare(this.dir, this.displayRoot)
      this.ready = opening
      opening.catch(() => {
        if (this.ready === opening) this.ready = undefined
      })
    }
    return this.ready
  }

  private async read(jail: PathJail, call: Input<'read'>): Promise<string> {
    const location = locateMemory(jail, call.path)
    if (location.parts.length === 0) {
      throw new ToolError(`${jail.displayRoot} is a folder; use list to see the files in it`)
    }
    const handle = await jail.openExisting(location)
    try {
      return await readText(handle, location.display, this.limits.maxFileBytes)
    } finally {
      await handle.close()
    }
  }

  private async write(jail: PathJail, call: Input<'write'>): Promise<string> {
    const location = locateTarget(jail, call.path, 'write')
    checkWritableText(call.content, 'content')
    const size = Buffer.byteLength(call.content)
    checkFileSize(location.display, size, this.limits, 'write')
    return withMemoryLock(
      jail,
      async () => {
        const tree = await scanTree(jail)
        const old = tree.entries.find((e) => e.kind === 'file' && e.display === location.display)
        if (!old) checkFileCount(jail.displayRoot, tree.entries.length, this.limits)
        checkTotal(jail.displayRoot, tree.total, old?.size ?? 0, size, this.limits)
        const entry = await jail.entry(location, { createParents: true, dirMode: DIR_MODE })
        try {
          const existed = writableTarget(await entry.lstat(), location, 'write')
          await entry.writeAtomic(call.content, { mode: FILE_MODE })
          return `${existed ? 'Overwrote' : 'Created'} ${location.display} (${formatBytes(size)})`
        } finally {
          await entry.close()
        }
      },
      this.lockOptions,
    )
  }

  private async edit(jail: PathJail, call: Input<'edit'>): Promise<string> {
    const location = locateTarget(jail, call.path, 'edit')
    if (call.old_text === '') {
      throw new ToolError('old_text is empty; give the exact text to replace')
    }
    checkWritableText(call.new_text, 'new_text')
    return withMemoryLock(
      jail,
      async () => {
        const entry = await jail.entry(location)
        try {
          if (!writableTarget(await entry.lstat(), location, 'edit')) {
            throw new ToolError(
              `${location.display} does not exist; use write to create it, or list to see the files`,
            )
          }
          const text = await readEntry(entry, location, this.limits.maxFileBytes)
          const count = countOccurrences(text, call.old_text)
          if (count !== 1) throw occurrenceError(location.display, count)
          const at = text.indexOf(call.old_text)
          // Sliced rather than String.replace, which would expand `$&` and friends in new_text.
          const next = text.slice(0, at) + call.new_text + text.slice(at + call.old_text.length)
          const oldSize = Buffer.byteLength(text)
          const size = Buffer.byteLength(next)
          checkFileSize(location.display, size, this.limits, 'edit')
          if (size > oldSize) {
            checkTotal(jail.displayRoot, (await scanTree(jail)).total, oldSize, size, this.limits)
          }
          await entry.writeAtomic(next, { mode: FILE_MODE })
          return `Edited ${location.display}: replaced 1 occurrence of old_text (${formatBytes(size)} now)`
        } finally {
          await entry.close()
        }
      },
      this.lockOptions,
    )
  }

  private async delete(jail: PathJail, call: Input<'delete'>): Promise<string> {
    const location = locateTarget(jail, call.path, 'delete')
    return withMemoryLock(
      jail,
      async () => {
        const entry = await jail.entry(location)
        try {
          const stat = await entry.lstat()
          if (!stat) throw new ToolError(`${location.display} does not exist`)
          if (stat.isDirectory()) {
            const inside = await scanTree(jail, location.parts)
            await entry.removeTree().catch((error: unknown) => {
              throw jail.describe(error, location.display)
            })
            if (inside.files === 0)
              return `Deleted the folder ${location.display} (it held no files)`
            const files = inside.files === 1 ? '1 file' : `${inside.files} files`
            return `Deleted the folder ${location.display} and the ${files} in it`
          }
          await entry.unlink()
          return stat.isSymbolicLink()
            ? `Deleted the symbolic link ${location.display} (what it pointed to was not touched)`
            : `Deleted ${location.display}`
        } finally {
          await entry.close()
        }
      },
      this.lockOptions,
    )
  }
}

/**
 * Whether a write or edit may replace what is at the name; true when something is there. A link
 * is refused: replacing it would silently turn it into a file, and following it is what a planted
 * link wants.
 */
function writableTarget(stat: Stats | null, location: Located, command: string): boolean {
  if (!stat) return false
  if (stat.isDirectory()) {
    throw new ToolError(
      `${location.display} is a folder; ${command} needs a file path such as ${location.display}/notes.md`,
    )
  }
  if (stat.isSymbolicLink()) {
    throw new ToolError(
      `${location.display} is a symbolic link; memory files cannot be changed through links. Delete it first, then write the file`,
    )
  }
  if (!stat.isFile()) throw new ToolError(`${location.display} is not a regular file`)
  return true
}

async function readEntry(entry: JailEntry, location: Located, limit: number): Promise<string> {
  const handle = await entry.open(constants.O_RDONLY)
  try {
    return await readText(handle, location.display, limit)
  } finally {
    await handle.close()
  }
}

function occurrenceError(display: string, count: number): ToolError {
  const times = count === 1 ? 'once' : `${count} times`
  const advice =
    count === 0
      ? 'read the file and copy the text exactly, including spaces and line breaks'
      : 'include more of the surrounding text so it matches only one place'
  return new ToolError(
    `old_text found ${times} in ${display}; it must appear exactly once, so ${advice}`,
  )
}

/**
 * Makes the folder if missing and sets it to 0700 whatever it was (the application may have made
 * it with a loose umask), through a descriptor so the mode lands on the folder that was checked.
 */
async function prepare(dir: string, displayRoot: string): Promise<PathJail> {
  try {
    await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE })
    const handle = await fsp.open(dir, constants.O_RDONLY | constants.O_DIRECTORY)
    try {
      await handle.chmod(DIR_MODE)
    } finally {
      await handle.close()
    }
    return await PathJail.open(dir, displayRoot)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code ?? 'unknown error'
    // The real path stays out of the message: the model only knows the display root.
    throw new ToolError(`the memory folder is not available (${code}); tell the user`)
  }
}
