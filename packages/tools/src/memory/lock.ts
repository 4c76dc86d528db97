import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { AlreadyExistsError, type JailEntry, type Located, type PathJail } from '../jail/index.js'
import { ToolError } from '../result.js'

/** The cross-process lock file, in the memory folder itself so every user of it sees the same. */
export const LOCK_NAME = '.syntic-lock'
// Held only for the instant it takes to remove a stale lock, so two waiters that both find the
// lock stale cannot each remove it and end up both holding a fresh one.
const TAKEOVER_NAME = '.syntic-lock-takeover'

export interface LockOptions {
  /** How long to wait for the holder before giving up. */
  waitMs?: number
  /** A lock older than this is taken over even if its holder seems alive. */
  staleMs?: number
}

const DEFAULT_WAIT_MS = 5_000
const DEFAULT_STALE_MS = 30_000
const FIRST_DELAY_MS = 5
const MAX_DELAY_MS = 100

interface LockRecord {
  pid: number
  host: string
  time: number
  token: string
}

/** What is found at a lock name: its record when it parses, and the file's identity. */
interface Holder {
  record: LockRecord | null
  ino: number
  mtimeMs: number
}

// One chain per real folder: calls in this process wait their turn on a promise instead of
// spinning on the lock file against each other.
const queues = new Map<string, Promise<void>>()
// Tokens this process holds right now, to tell its own live lock from one a previous process
// with the same pid left behind (pid 1 in a restarted container).
const heldTokens = new Set<string>()

/**
 * Runs `body` while holding the memory folder's lock: first this process's queue, then the lock
 * file shared with other processes. Released in every case.
 */
export async function withMemoryLock<T>(
  jail: PathJail,
  body: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const key = jail.realRoot
  const previous = queues.get(key) ?? Promise.resolve()
  let done!: () => void
  const mine = new Promise<void>((resolve) => {
    done = resolve
  })
  const tail = previous.then(() => mine)
  queues.set(key, tail)
  try {
    await previous
    const release = await acquire(jail, {
      waitMs: options.waitMs ?? DEFAULT_WAIT_MS,
      staleMs: options.staleMs ?? DEFAULT_STALE_MS,
    })
    try {
      return await body()
    } finally {
      await release()
    }
  } finally {
    done()
    if (queues.get(key) === tail) queues.delete(key)
  }
}

function located(jail: PathJail, name: string): Located {
  return { display: jail.displayOf([name]), parts: [name] }
}

function newRecord(): LockRecord {
  return {
    pid: process.pid,
    host: hostname(),
    time: Date.now(),
    token: randomBytes(12).toString('hex'),
  }
}

async function acquire(
  jail: PathJail,
  options: Required<LockOptions>,
): Promise<() => Promise<void>> {
  const lock = await jail.entry(located(jail, LOCK_NAME))
  let acquired = false
  try {
    const deadline = Date.now() + options.waitMs
    let delay = FIRST_DELAY_MS
    for (;;) {
      const record = newRecord()
      // Registered before the lock file appears, so no moment exists where it looks abandoned.
      heldTokens.add(record.token)
      let created = false
      try {
        created = await tryCreate(lock, record)
      } finally {
        if (!created) heldTokens.delete(record.token)
      }
      if (created) {
        acquired = true
        return async () => {
          try {
            await removeIfOurs(lock, record.token)
          } finally {
            heldTokens.delete(record.token)
            await lock.close()
          }
        }
      }
      const holder = await readHolder(lock)
      const cleared =
        holder !== null &&
        isStale(holder, options.staleMs) &&
        (await breakStale(jail, lock, holder, options.staleMs))
      if (Date.now() >= deadline) {
        throw new ToolError(
          `the memory folder is busy: another conversation has been changing it for over ${waited(options.waitMs)}; try again in a moment`,
        )
      }
      if (cleared) continue
      // Jitter keeps two waiting processes from retrying in lockstep.
      await sleep(delay * (0.5 + Math.random()))
      delay = Math.min(delay * 1.5, MAX_DELAY_MS)
    }
  } finally {
    if (!acquired) await lock.close()
  }
}

function waited(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`
}

/**
 * Creates the lock file with its record already inside (written to a temp file, then linked into
 * place), so nobody ever sees a lock file that exists but is still empty.
 */
async function tryCreate(entry: JailEntry, record: LockRecord): Promise<boolean> {
  if (await entry.lstat()) return false
  try {
    await entry.writeAtomic(JSON.stringify(record), { mode: 0o600, exclusive: true })
    return true
  } catch (error) {
    // The jail reports an exclusive write that lost the race only by this message (no errno);
    // the winner may already have released, so the name being free again proves nothing.
    if (error instanceof AlreadyExistsError) {
      return false
    }
    if (await entry.lstat()) return false
    throw error
  }
}

function parseRecord(text: string): LockRecord | null {
  try {
    const value = JSON.parse(text) as Partial<LockRecord> | null
    if (
      value &&
      Number.isSafeInteger(value.pid) &&
      (value.pid ?? 0) > 0 &&
      typeof value.host === 'string' &&
      typeof value.time === 'number' &&
      typeof value.token === 'string'
    ) {
      return value as LockRecord
    }
  } catch {
    // Falls through: unparseable.
  }
  return null
}

/** The holder of the lock name, or null when the name is free. */
async function readHolder(entry: JailEntry): Promise<Holder | null> {
  const stat = await entry.lstat()
  if (!stat) return null
  const holder: Holder = { record: null, ino: stat.ino, mtimeMs: stat.mtimeMs }
  if (!stat.isFile() || stat.size > 4096) return holder
  let text: string
  try {
    const handle = await entry.open()
    try {
      text = await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
  } catch {
    // Removed meanwhile, or unreadable: report what lstat saw and let staleness decide.
    return (await entry.lstat()) ? holder : null
  }
  holder.record = parseRecord(text)
  return holder
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Our writers create the lock whole, so a lock that does not parse was not made by this tool and
 * is cleared at once. A pid is only checked on this host: on another machine or in another pid
 * namespace the same number means nothing, and only the age rule applies.
 */
function isStale(holder: Holder, staleMs: number): boolean {
  const record = holder.record
  if (!record) return true
  if (Date.now() - record.time > staleMs) return true
  if (record.host !== hostname()) return false
  if (record.pid === process.pid) return !heldTokens.has(record.token)
  return !isAlive(record.pid)
}

function sameHolder(a: Holder, b: Holder): boolean {
  if (a.record && b.record) return a.record.token === b.record.token
  return a.record === b.record && a.ino === b.ino && a.mtimeMs === b.mtimeMs
}

/** Removes a stale lock unless someone else is already doing it. True when this call removed it. */
async function breakStale(
  jail: PathJail,
  lock: JailEntry,
  stale: Holder,
  staleMs: number,
): Promise<boolean> {
  const guard = await jail.entry(located(jail, TAKEOVER_NAME))
  try {
    const record = newRecord()
    heldTokens.add(record.token)
    let created = false
    try {
      created = await tryCreate(guard, record)
    } finally {
      if (!created) heldTokens.delete(record.token)
    }
    if (!created) {
      // The guard's holder died during its takeover: clear the guard so the next turn can retry.
      const other = await readHolder(guard)
      if (other && isStale(other, staleMs)) await guard.unlink().catch(() => undefined)
      return false
    }
    try {
      // Checked again under the guard: another waiter may have replaced it with a live lock.
      const current = await readHolder(lock)
      if (!current || !sameHolder(current, stale)) return false
      try {
        await lock.unlink()
      } catch (error) {
        // Gone anyway (its slow holder released it just now) is as good as removed.
        if (await lock.lstat()) throw error
      }
      return true
    } finally {
      await removeIfOurs(guard, record.token)
      heldTokens.delete(record.token)
    }
  } finally {
    await guard.close()
  }
}

/**
 * Removes the lock only if it is still ours: if this holder was so slow that another process took
 * the lock over as stale, removing it would let a third one in alongside.
 */
async function removeIfOurs(entry: JailEntry, token: string): Promise<void> {
  try {
    const holder = await readHolder(entry)
    if (holder?.record?.token === token) await entry.unlink()
  } catch {
    // Nothing better to do: a lock left behind is taken over once it is stale.
  }
}
