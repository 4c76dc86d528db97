// One mod's process: started in its own process group with stderr discarded, fed through a
// bounded queue so a mod that stops reading can never make the host buffer without limit, and
// stopped by killing the whole group so children it left behind die with it.
import { type ChildProcess, spawn } from 'node:child_process'
import type { Readable } from 'node:stream'
import { EVENT_QUEUE_MAX, OUTPUT_DRAIN_MS } from './limits.js'

export interface ModProcessSpec {
  program: string
  args: string[]
  cwd: string
  env: Record<string, string>
}

export interface ExitInfo {
  code: number | null
  signal: NodeJS.Signals | null
}

interface Outgoing {
  /** An empty string marks the end of input. */
  line: string | Buffer
  /** Events may be dropped when the mod falls behind; hello, results and bye never are. */
  droppable: boolean
}

export class ModProcess {
  private queue: Outgoing[] = []
  private queuedEvents = 0
  private queuedBytes = 0
  private exitInfo: ExitInfo | undefined
  private inputEnded = false
  private readonly exitPromise: Promise<ExitInfo>
  private readonly outputClosed: Promise<void>
  /** Events dropped for this mod because it did not read them in time. */
  droppedEvents = 0
  /** Called when the queue drained below the host's pause threshold. */
  onDrain: () => void = () => {}

  private constructor(private readonly child: ChildProcess) {
    this.exitPromise = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal }
        this.queue = []
        this.queuedBytes = 0
        resolve(this.exitInfo)
      })
    })
    this.outputClosed = new Promise((resolve) => {
      if (child.stdout) child.stdout.once('close', resolve)
      else resolve()
    })
    child.stdin?.on('error', () => {
      this.queue = []
      this.queuedBytes = 0
    })
    child.stdin?.on('drain', () => this.flush())
    child.stdout?.on('error', () => {})
  }

  /** Spawn; resolves once the process runs, rejects when it could not be started. */
  static start(spec: ModProcessSpec): Promise<ModProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(spec.program, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ['pipe', 'pipe', 'ignore'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      })
      child.once('error', reject)
      child.once('spawn', () => {
        child.off('error', reject)
        child.on('error', () => {})
        resolve(new ModProcess(child))
      })
    })
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  get exited(): ExitInfo | undefined {
    return this.exitInfo
  }

  get stdout(): Readable {
    return this.child.stdout!
  }

  /** Bytes written by us that the mod has not read yet (beyond the pipe and Node's buffer). */
  get backlogBytes(): number {
    return this.queuedBytes
  }

  whenExited(): Promise<ExitInfo> {
    return this.exitPromise
  }

  /** Queue one line; returns false when an older waiting event had to be dropped for it. */
  send(line: string | Buffer, droppable: boolean): boolean {
    if (this.inputEnded || this.exitInfo || !this.child.stdin || this.child.stdin.destroyed) {
      return true
    }
    if (this.queue.length === 0 && !this.child.stdin.writableNeedDrain) {
      this.child.stdin.write(line)
      return true
    }
    this.queue.push({ line, droppable })
    this.queuedBytes += line.length
    if (!droppable) return true
    this.queuedEvents++
    if (this.queuedEvents <= EVENT_QUEUE_MAX) return true
    const oldest = this.queue.findIndex((item) => item.droppable)
    const [removed] = this.queue.splice(oldest, 1)
    this.queuedBytes -= removed!.line.length
    this.queuedEvents--
    this.droppedEvents++
    return false
  }

  /** No more input: the mod sees end of file after what is queued. */
  endInput(): void {
    if (this.inputEnded) return
    if (this.queue.length === 0) this.child.stdin?.end()
    else this.queue.push({ line: '', droppable: false })
    // Later lines (results of calls made after bye) would be written after the end: dropped.
    this.inputEnded = true
  }

  /** Resolves once the mod's output was read to its end, or within `limitMs`. */
  outputDone(limitMs: number): Promise<void> {
    return raceLimit(this.outputClosed, limitMs)
  }

  /** Kill the process group; also when the leader already exited, for the children it left. */
  killGroup(): void {
    const pid = this.child.pid
    if (pid === undefined) return
    try {
      if (process.platform === 'win32') this.child.kill('SIGKILL')
      else process.kill(-pid, 'SIGKILL')
    } catch {
      // The group is already gone.
    }
  }

  /**
   * Wait up to `graceMs` for the process to exit by itself, then kill its group. What it wrote
   * before dying is still read (for at most OUTPUT_DRAIN_MS more): a note posted in answer to
   * `turn.end` or `session.end` just before `bye` is not lost.
   */
  async stop(graceMs: number): Promise<{ exitedInTime: boolean; exit: ExitInfo }> {
    await raceLimit(this.exitPromise, graceMs)
    const exitedInTime = this.exitInfo !== undefined
    this.killGroup()
    await this.outputDone(OUTPUT_DRAIN_MS)
    this.child.stdout?.destroy()
    this.child.stdin?.destroy()
    const exit = await this.exitPromise
    return { exitedInTime, exit }
  }

  private flush(): void {
    const stdin = this.child.stdin
    if (!stdin) return
    while (this.queue.length > 0 && !stdin.writableNeedDrain && !stdin.destroyed) {
      const item = this.queue.shift()!
      this.queuedBytes -= item.line.length
      if (item.droppable) this.queuedEvents--
      if (item.line === '' && !item.droppable) {
        stdin.end()
        return
      }
      stdin.write(item.line)
    }
    if (this.queue.length === 0) this.onDrain()
  }

  /**
   * Runs `work` with the mod's input corked: the lines it writes leave in one system call. A mod
   * flooding calls gets a batch of results in one write instead of one write each.
   */
  batch(work: () => void): void {
    const stdin = this.child.stdin
    if (!stdin || stdin.destroyed) {
      work()
      return
    }
    stdin.cork()
    try {
      work()
    } finally {
      stdin.uncork()
    }
  }
}

/** `promise`, or `limitMs` passing, whichever comes first; the timer never outlives the race. */
async function raceLimit(promise: Promise<unknown>, limitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, limitMs)
    }),
  ])
  clearTimeout(timer)
}
