import { createHash, randomBytes } from 'node:crypto'
import { promises as fsp } from 'node:fs'
import { join } from 'node:path'

/** What a file was before one change: its bytes and mode, or the fact that it did not exist. */
export type PriorVersion =
  | { kind: 'snapshot'; mode: number; uid: number; gid: number; content: Buffer }
  | { kind: 'absent' }

/** A recorded change: the prior version, and a hash of what the change wrote. */
export interface HistoryRecord {
  seq: number
  prior: PriorVersion
  /** sha256 of the bytes the change wrote; undo compares it to spot edits made elsewhere. */
  after: string
}

interface Meta {
  path: string
  after: string
  mode?: number
  uid?: number
  gid?: number
  time: string
}

const ENTRY = /^(\d{12})\.(snapshot|absent)\.json$/
const SEQ_DIGITS = 12

/**
 * Undo history on disk, so it outlives the process. One folder per file, named by the sha256 of
 * its path relative to the workspace; in it each change is `<seq>.snapshot.json` plus
 * `<seq>.snapshot` (the prior bytes, as they were) or just `<seq>.absent.json` (the file did not
 * exist), and `<seq>.claim`. Several processes may share the folder: a sequence number is taken
 * by creating its claim file exclusively, so two writers never end up with the same one. The
 * JSON is linked into place last, so a crash never leaves a half-written entry that undo would
 * trust.
 */
export class History {
  constructor(
    readonly dir: string,
    readonly maxVersions: number,
  ) {}

  /**
   * Records the version a change is about to replace; returns its sequence number. Nothing old is
   * dropped here: the caller prunes once its write has succeeded, so a failed write that removes
   * its entry again leaves the history as it was.
   */
  async push(path: string, prior: PriorVersion, after: string): Promise<number> {
    const folder = await this.folder(path, true)
    const seq = await this.claim(folder)
    const base = entryBase(folder, seq)
    const meta: Meta = { path, after, time: new Date().toISOString() }
    try {
      if (prior.kind === 'snapshot') {
        await fsp.writeFile(`${base}.snapshot`, prior.content, { mode: 0o600, flag: 'wx' })
        Object.assign(meta, { mode: prior.mode, uid: prior.uid, gid: prior.gid })
      }
      await writeJsonExclusive(`${base}.${prior.kind}.json`, meta)
    } catch (error) {
      await this.removeEntry(folder, seq).catch(() => undefined)
      throw error
    }
    return seq
  }

  /** Drops the oldest changes to `path` beyond `maxVersions`. */
  async prune(path: string): Promise<void> {
    const folder = await this.folder(path, false)
    const entries = await this.entries(folder)
    for (const entry of entries.slice(0, Math.max(0, entries.length - this.maxVersions))) {
      await this.removeEntry(folder, entry.seq)
    }
  }

  /**
   * The newest change to `path`, with its prior content loaded, or null when there is none. An
   * entry that cannot be read back (damaged by hand, disk trouble) is dropped, not trusted.
   */
  async latest(path: string): Promise<HistoryRecord | null> {
    const folder = await this.folder(path, false)
    const entries = await this.entries(folder)
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i]
      if (!entry) continue
      const record = await this.load(folder, entry.seq, entry.kind)
      if (record) return record
      await this.removeEntry(folder, entry.seq)
    }
    return null
  }

  private async load(
    folder: string,
    seq: number,
    kind: PriorVersion['kind'],
  ): Promise<HistoryRecord | null> {
    const base = entryBase(folder, seq)
    let meta: Meta
    let content: Buffer | undefined
    try {
      meta = JSON.parse(await fsp.readFile(`${base}.${kind}.json`, 'utf8')) as Meta
      if (kind === 'snapshot') content = await fsp.readFile(`${base}.snapshot`)
    } catch (error) {
      if (error instanceof SyntaxError || (error as NodeJS.ErrnoException).code === 'ENOENT') {
        return null
      }
      throw error
    }
    if (typeof meta.after !== 'string') return null
    if (!content) return { seq, prior: { kind: 'absent' }, after: meta.after }
    return {
      seq,
      after: meta.after,
      prior: {
        kind: 'snapshot',
        mode: typeof meta.mode === 'number' ? meta.mode : 0o644,
        uid: typeof meta.uid === 'number' ? meta.uid : -1,
        gid: typeof meta.gid === 'number' ? meta.gid : -1,
        content,
      },
    }
  }

  /** Removes one change, once undo has applied it or its write failed. */
  async remove(path: string, seq: number): Promise<void> {
    await this.removeEntry(await this.folder(path, false), seq)
  }

  /** How many changes to `path` can still be undone. */
  async count(path: string): Promise<number> {
    return (await this.entries(await this.folder(path, false))).length
  }

  private async folder(path: string, create: boolean): Promise<string> {
    const folder = join(this.dir, createHash('sha256').update(path).digest('hex'))
    // 0700 all the way down: old file contents are user data.
    if (create) await fsp.mkdir(folder, { recursive: true, mode: 0o700 })
    return folder
  }

  private async entries(folder: string): Promise<{ seq: number; kind: PriorVersion['kind'] }[]> {
    let names: string[]
    try {
      names = await fsp.readdir(folder)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    const found: { seq: number; kind: PriorVersion['kind'] }[] = []
    for (const name of names) {
      const match = ENTRY.exec(name)
      if (match) found.push({ seq: Number(match[1]), kind: match[2] as PriorVersion['kind'] })
    }
    return found.sort((a, b) => a.seq - b.seq)
  }

  /**
   * Takes the next free sequence number. Another process may take the same one between the scan
   * and the claim; the exclusive create then fails and the next number is tried.
   */
  private async claim(folder: string): Promise<number> {
    let seq = (await this.highestSeq(folder)) + 1
    for (;;) {
      try {
        await fsp.writeFile(`${entryBase(folder, seq)}.claim`, '', { mode: 0o600, flag: 'wx' })
        return seq
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        seq++
      }
    }
  }

  private async highestSeq(folder: string): Promise<number> {
    // Counts claims and leftover snapshot files too, so a new entry never reuses their names.
    let highest = 0
    for (const name of await fsp.readdir(folder)) {
      const seq = Number.parseInt(name.slice(0, SEQ_DIGITS), 10)
      if (/^\d{12}\./.test(name) && seq > highest) highest = seq
    }
    return highest
  }

  private async removeEntry(folder: string, seq: number): Promise<void> {
    const base = entryBase(folder, seq)
    // The JSON goes first: without it the entry no longer exists, whatever else is left. The
    // claim goes last, so the number is not handed out again while files of the entry remain.
    for (const suffix of ['.absent.json', '.snapshot.json', '.snapshot', '.claim']) {
      await fsp.rm(`${base}${suffix}`, { force: true })
    }
  }
}

function entryBase(folder: string, seq: number): string {
  return join(folder, String(seq).padStart(SEQ_DIGITS, '0'))
}

/** Writes the JSON whole under a temporary name, then links it in: never over an existing one. */
async function writeJsonExclusive(path: string, value: unknown): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`
  try {
    await fsp.writeFile(temp, JSON.stringify(value), { mode: 0o600, flag: 'wx' })
    await fsp.link(temp, path)
  } finally {
    await fsp.rm(temp, { force: true })
  }
}
