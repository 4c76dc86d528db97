import { createHash } from 'node:crypto'
import type { FileHandle } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { checkToolInput, type TextEditorInput } from '@syntic/protocol'
import type { ToolHandler } from '../handler.js'
import { type Located, PathJail } from '../jail/index.js'
import { runSafely, success, ToolError, type ToolResult } from '../result.js'
import { type Change, insertAfter, replaceUnique, snippet } from './edit.js'
import {
  assertOpenable,
  type EditableFile,
  notRegularError,
  readEditable,
  removeFile,
  writeBack,
  writeNew,
} from './file-access.js'
import { describeSize, plural } from './format.js'
import { History, type PriorVersion } from './history.js'
import { LineIndexCache } from './line-index.js'
import { listFolder } from './listing.js'
import { countLines, inspectText, type TextInfo } from './text-file.js'
import { viewFile } from './view.js'

export interface EditorOptions {
  /** The real workspace folder (must exist). */
  root: string
  /** What the model sees, e.g. '/workspace'; default: the real path. */
  displayRoot?: string
  /** Where undo history lives; default: ~/.local/state/syntic/editor-history/<root hash>. */
  historyDir?: string
  /** Versions kept per file, default 20. */
  maxHistory?: number
  /** Longest output, default 16000 characters. */
  maxOutputChars?: number
  /** Largest file create/replace/insert will load, default 64 MiB. */
  maxEditBytes?: number
}

const DEFAULT_MAX_HISTORY = 20
const DEFAULT_MAX_OUTPUT_CHARS = 16_000
const DEFAULT_MAX_EDIT_BYTES = 64 * 1024 * 1024
const MAX_LISTING_ENTRIES = 1000

type Command<C extends TextEditorInput['command']> = Extract<TextEditorInput, { command: C }>

interface Workspace {
  jail: PathJail
  history: History
}

/**
 * The `syntic_text_editor` tool: view, create, replace, insert and undo inside one workspace
 * folder. Every path goes through the jail's descriptor-checked walk; every write is atomic.
 */
export class TextEditorTool implements ToolHandler {
  readonly name = 'syntic_text_editor'
  private workspace: Promise<Workspace> | undefined
  private readonly cache = new LineIndexCache(4)
  private readonly maxHistory: number
  private readonly maxOutputChars: number
  private readonly maxEditBytes: number
  // Edits are read-modify-write; two in flight on one file would lose one of them.
  private queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly options: EditorOptions) {
    this.maxHistory = positive(options.maxHistory, DEFAULT_MAX_HISTORY)
    this.maxOutputChars = positive(options.maxOutputChars, DEFAULT_MAX_OUTPUT_CHARS)
    this.maxEditBytes = positive(options.maxEditBytes, DEFAULT_MAX_EDIT_BYTES)
  }

  run(input: unknown): Promise<ToolResult> {
    return runSafely(async () => {
      const check = checkToolInput('syntic_text_editor', input)
      if (!check.ok) throw new ToolError(check.error)
      const command = check.value
      const workspace = await this.open()
      const location = workspace.jail.locate(command.path)
      switch (command.command) {
        case 'view':
          return success(await this.view(workspace, location, command))
        case 'create':
          return success(await this.serial(() => this.create(workspace, location, command)))
        case 'replace':
          return success(await this.serial(() => this.replace(workspace, location, command)))
        case 'insert':
          return success(await this.serial(() => this.insert(workspace, location, command)))
        case 'undo':
          return success(await this.serial(() => this.undo(workspace, location)))
      }
    })
  }

  private async view(
    { jail }: Workspace,
    location: Located,
    command: Command<'view'>,
  ): Promise<string> {
    const { display } = location
    let handle: FileHandle
    if (location.parts.length === 0) {
      handle = await jail.openExisting(location)
    } else {
      const entry = await jail.entry(location)
      try {
        const lstat = await entry.lstat()
        if (!lstat) throw new ToolError(`${display} does not exist`)
        assertOpenable(lstat, display)
        handle = await entry.open()
      } finally {
        await entry.close()
      }
    }
    try {
      const stat = await handle.stat()
      if (stat.isDirectory()) {
        if (command.range) {
          throw new ToolError(`range only applies to files, and ${display} is a folder`)
        }
        return await listFolder(jail, handle, display, {
          maxEntries: MAX_LISTING_ENTRIES,
          maxOutputChars: this.maxOutputChars,
        })
      }
      if (!stat.isFile()) throw notRegularError(display, stat)
      return await viewFile(handle, stat, display, {
        range: command.range,
        maxOutputChars: this.maxOutputChars,
        cache: this.cache,
      })
    } finally {
      await handle.close()
    }
  }

  private async create(
    { jail, history }: Workspace,
    location: Located,
    command: Command<'create'>,
  ): Promise<string> {
    const { display } = location
    notRoot(location, 'create')
    const data = Buffer.from(command.content)
    if (data.length > this.maxEditBytes) {
      throw new ToolError(
        `content is ${describeSize(data.length)}; the editor writes files up to ${describeSize(this.maxEditBytes)}`,
      )
    }
    const key = historyKey(location)
    // Missing parent folders are made first; the exclusive write then settles any race.
    const entry = await jail.entry(location, { createParents: true })
    try {
      if (await entry.lstat()) throw alreadyExists(display)
      const seq = await record(history, key, { kind: 'absent' }, data)
      try {
        await entry.writeAtomic(data, { mode: 0o644, exclusive: true })
      } catch (error) {
        await history.remove(key, seq).catch(() => undefined)
        if (error instanceof ToolError && error.message === `${display} already exists`) {
          throw alreadyExists(display)
        }
        throw jail.describe(error, display)
      }
      await prune(history, key)
    } finally {
      await entry.close()
    }
    const lines = countLines(data)
    return `Created ${display} (${lines === 0 ? 'empty' : plural(lines, 'line')})`
  }

  private async replace(
    workspace: Workspace,
    location: Located,
    command: Command<'replace'>,
  ): Promise<string> {
    const { display } = location
    const { file, info } = await this.load(workspace, location)
    const change = replaceUnique(file.bytes, info, command.old_text, command.new_text, display)
    await this.commit(workspace, location, file, change)
    const { firstLine, lineCount } = change
    const where =
      lineCount === 0
        ? `Removed the text from ${display} at line ${firstLine}.`
        : `Replaced text in ${display}; the new text is ${lineSpan(firstLine, lineCount)}.`
    return this.withSnippet(where, change)
  }

  private async insert(
    workspace: Workspace,
    location: Located,
    command: Command<'insert'>,
  ): Promise<string> {
    const { display } = location
    const { file, info } = await this.load(workspace, location)
    const change = insertAfter(file.bytes, info, command.after_line, command.text, display)
    await this.commit(workspace, location, file, change)
    const place = command.after_line === 0 ? 'at the top of' : `after line ${command.after_line} of`
    const what = `Inserted ${plural(change.lineCount, 'line')} ${place} ${display} (now ${lineSpan(
      change.firstLine,
      change.lineCount,
    )}).`
    return this.withSnippet(what, change)
  }

  private async undo({ jail, history }: Workspace, location: Located): Promise<string> {
    const { display } = location
    notRoot(location, 'undo')
    const key = historyKey(location)
    const last = await history.latest(key)
    if (!last) throw new ToolError(`no change to undo for ${display}`)

    const current = await readEditable(jail, location, this.maxEditBytes)
    if (current && sha256(current.bytes) !== last.after) {
      // Not what the editor last wrote: refuse rather than discard a change made elsewhere.
      inspectText(current.bytes, display)
      throw new ToolError(
        `${display} was changed outside the editor after its last edit, and undo would discard that change; view the file and edit it instead`,
      )
    }

    let done: string
    if (last.prior.kind === 'absent') {
      if (!current) {
        done = `Undid the creation of ${display}; it had already been removed.`
      } else {
        if (current.target !== location) {
          throw new ToolError(
            `${display} is now a symbolic link, not the file create made; not removing it`,
          )
        }
        await removeFile(jail, current)
        done = `Undid the creation of ${display}: removed the file.`
      }
    } else {
      const { content } = last.prior
      if (current) await writeBack(jail, current, content, last.prior)
      else await writeNew(jail, location, content, last.prior)
      const lines = countLines(content)
      done = `Restored the previous version of ${display} (${lines === 0 ? 'empty' : plural(lines, 'line')}).`
    }
    // The change is undone either way; an entry left behind by a failed removal is caught by the
    // hash check on the next undo.
    await history.remove(key, last.seq).catch(() => undefined)
    const left = await history.count(key).catch(() => 0)
    return left === 0
      ? `${done} No earlier change is recorded.`
      : `${done} ${plural(left, 'earlier change')} can still be undone.`
  }

  /** Reads a file for replace or insert, refusing what the editor cannot safely rewrite. */
  private async load(
    { jail }: Workspace,
    location: Located,
  ): Promise<{ file: EditableFile; info: TextInfo }> {
    const { display } = location
    if (location.parts.length === 0) {
      throw new ToolError(`${display} is a folder; only files can be edited`)
    }
    const file = await readEditable(jail, location, this.maxEditBytes)
    if (!file) throw new ToolError(`${display} does not exist; use create to make it`)
    return { file, info: inspectText(file.bytes, display) }
  }

  /**
   * Records the version being replaced, then writes, then prunes; a failed write leaves the
   * history as it was.
   */
  private async commit(
    { jail, history }: Workspace,
    location: Located,
    file: EditableFile,
    change: Change,
  ): Promise<void> {
    if (change.bytes.length > this.maxEditBytes) {
      throw new ToolError(
        `the edit would make ${location.display} ${describeSize(change.bytes.length)}, over the ${describeSize(this.maxEditBytes)} limit`,
      )
    }
    const key = historyKey(location)
    const prior: PriorVersion = {
      kind: 'snapshot',
      mode: file.stat.mode & 0o7777,
      uid: file.stat.uid,
      gid: file.stat.gid,
      content: file.bytes,
    }
    const seq = await record(history, key, prior, change.bytes)
    try {
      await writeBack(jail, file, change.bytes)
    } catch (error) {
      await history.remove(key, seq).catch(() => undefined)
      throw error
    }
    await prune(history, key)
  }

  private withSnippet(summary: string, change: Change): string {
    const { header, body } = snippet(change, this.maxOutputChars - summary.length)
    return body === '' ? `${summary} ${header}` : `${summary} ${header}\n${body}`
  }

  private open(): Promise<Workspace> {
    if (!this.workspace) {
      const opening = openWorkspace(this.options, this.maxHistory)
      this.workspace = opening
      // A root that is missing now may exist on the next call.
      opening.catch(() => {
        if (this.workspace === opening) this.workspace = undefined
      })
    }
    return this.workspace
  }

  private serial<T>(body: () => Promise<T>): Promise<T> {
    const next = this.queue.then(body, body)
    this.queue = next.catch(() => undefined)
    return next
  }
}

async function openWorkspace(options: EditorOptions, maxHistory: number): Promise<Workspace> {
  let jail: PathJail
  try {
    jail = await PathJail.open(options.root, options.displayRoot)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new ToolError(
      `the workspace folder${options.displayRoot ? ` ${options.displayRoot}` : ''} is not available (${reason})`,
    )
  }
  const historyDir =
    options.historyDir ??
    join(
      homedir(),
      '.local/state/syntic/editor-history',
      createHash('sha256').update(jail.realRoot).digest('hex').slice(0, 16),
    )
  return { jail, history: new History(historyDir, maxHistory) }
}

/** Records a prior version, turning a history failure into an error that says nothing changed. */
async function record(
  history: History,
  key: string,
  prior: PriorVersion,
  after: Buffer,
): Promise<number> {
  try {
    return await history.push(key, prior, sha256(after))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error)
    throw new ToolError(`could not save undo history (${code}); the file was not changed`)
  }
}

/**
 * Drops versions beyond the limit, only once the edit is on disk: pruning before the write would
 * lose the oldest version for nothing when the write fails. The edit stands either way, so a
 * failure here only leaves an extra version for the next prune.
 */
async function prune(history: History, key: string): Promise<void> {
  await history.prune(key).catch(() => undefined)
}

function notRoot(location: Located, command: string): void {
  if (location.parts.length === 0) {
    throw new ToolError(
      `${location.display} is the workspace folder itself; ${command} needs a file path`,
    )
  }
}

function alreadyExists(display: string): ToolError {
  return new ToolError(`${display} already exists; use replace or insert to change it`)
}

function historyKey(location: Located): string {
  return location.parts.join('/')
}

function lineSpan(first: number, count: number): string {
  return count <= 1 ? `line ${first}` : `lines ${first}-${first + count - 1}`
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback
}
